using LogFlushMonitor.Core.Samples;
using LogFlushMonitor.Core.Signals;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>
/// Finds a live stream that is dead while it looks up. A path that stops forwarding without closing (a failed-over
/// middlebox, a frozen proxy) raises no error: the read blocks, the connection stays open, the stream stays "up". Two
/// signals the monitor already has reveal it, and either ends the connection so the stream reconnects:
/// <list type="bullet">
/// <item>a row stopped in the middle: the server sends a buffer's packets back to back, so no byte of a row that has
/// begun for <see cref="MidRowTimeout"/> means the path is dead;</item>
/// <item>the server flushed while the stream said nothing: the watched databases' <c>Log Flushes/sec</c> rose by at
/// least <see cref="MinFlushes"/> over poll intervals that all began after the stream's last byte, and longer than the
/// session's dispatch latency plus <see cref="Margin"/> has gone by. An idle server flushes nothing, so a quiet stream
/// on a quiet server is never taken for a stalled one.</item>
/// </list>
/// The stall is reported once per connection (error.type <c>stalled</c>, the stream marked down, a log line naming both
/// figures), and the stream reconnects like after any lost connection.
/// </summary>
public sealed class StreamWatchdog : IDisposable
{
    /// <summary>Flushes the server must have counted, unseen by the stream, before silence is a stall.</summary>
    public const long MinFlushes = 10;

    /// <summary>The cumulative counter of log flushes, per database (the instance's sum is its <c>_Total</c> row).</summary>
    private const string LogFlushes = "Log Flushes/sec";
    private const string TotalInstance = "_Total";

    private readonly SqlServerInstance _owner;
    private readonly Lock _gate = new();
    private ITimer? _timer;
    private long _pollSum = -1;
    private DateTimeOffset _lastPollUtc;
    private long _unseenFlushes;
    private SqlConnection? _firedFor;
    private string? _reason;

    internal StreamWatchdog(SqlServerInstance owner) => _owner = owner;

    /// <summary>How long a row that has begun may go without a byte (30 s: a buffer is at most a few MB).</summary>
    public TimeSpan MidRowTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>Added to the session's MAX_DISPATCH_LATENCY before silence counts (30 s).</summary>
    public TimeSpan Margin { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>How often the watchdog looks (5 s).</summary>
    public TimeSpan CheckInterval { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>Stalls found so far.</summary>
    public int Stalls { get; private set; }

    /// <summary>Flushes the server counted since the stream's last byte, in poll intervals that began after it.</summary>
    public long UnseenFlushes
    {
        get
        {
            lock (_gate)
            {
                return _unseenFlushes;
            }
        }
    }

    /// <summary>The poll sink the instance's pollers deliver through: everything passes, the flush counter is read on the way.</summary>
    internal IPollSink Tap(IPollSink inner) => new CounterTap(this, inner);

    /// <summary>Whether the watchdog ended <paramref name="connection"/>, and why (for the failure the read then raises).</summary>
    internal bool Fired(SqlConnection connection) => ReferenceEquals(Volatile.Read(ref _firedFor), connection);

    /// <summary>Why the watchdog ended the last connection it ended.</summary>
    internal string? Reason => Volatile.Read(ref _reason);

    /// <summary>Looks now (the timer calls it; tests too).</summary>
    public bool Check()
    {
        var stream = _owner.Stream;
        if (!stream.Connected)
        {
            return false;
        }

        var reader = stream.Reader;
        var now = _owner.Time.GetUtcNow();
        var silent = now - reader.LastProgressUtc;
        string? reason = null;
        if (reader.InRow && silent > MidRowTimeout)
        {
            reason = $"no byte of a row it had begun to receive for {silent.TotalSeconds:0} s";
        }
        else
        {
            var latency = TimeSpan.FromSeconds(_owner.Options.MaxDispatchLatencySeconds) + Margin;
            long unseen;
            lock (_gate)
            {
                unseen = _unseenFlushes;
            }

            if (!reader.InRow && unseen >= MinFlushes && silent > latency)
            {
                reason = $"no byte for {silent.TotalSeconds:0} s while the server counted {unseen:N0} log flushes of the watched databases (Log Flushes/sec)";
            }
        }

        if (reason is null)
        {
            return false;
        }

        Volatile.Write(ref _reason, reason);
        var connection = stream.CurrentConnection;
        if (connection is null)
        {
            return false;
        }

        Volatile.Write(ref _firedFor, connection);
        Stalls++;
        XeLog.StreamStalled(_owner.Logger, _owner.Name, reason);
        stream.Abort();
        lock (_gate)
        {
            _unseenFlushes = 0;
        }

        return true;
    }

    /// <summary>Starts looking every <see cref="CheckInterval"/> on the instance's clock.</summary>
    internal void Start() => _timer ??= _owner.Time.CreateTimer(_ => Check(), null, CheckInterval, CheckInterval);

    /// <inheritdoc />
    public void Dispose() => _timer?.Dispose();

    private void OnCounters(long sum, DateTimeOffset at)
    {
        var lastProgress = _owner.Stream.Reader.LastProgressUtc;
        lock (_gate)
        {
            var previous = _pollSum;
            var previousAt = _lastPollUtc;
            _pollSum = sum;
            _lastPollUtc = at;
            if (previous < 0 || sum < previous)
            {
                return; // the first reading, or a restart or reset: no interval to judge
            }

            // Only intervals that began after the stream's last byte: flushes in an interval the stream was still
            // receiving in may be the very events in that byte.
            _unseenFlushes = previousAt >= lastProgress ? _unseenFlushes + (sum - previous) : 0;
        }
    }

    /// <summary>Passes every polled batch on and adds up the watched databases' Log Flushes/sec at each counter poll.</summary>
    private sealed class CounterTap(StreamWatchdog watchdog, IPollSink inner) : IPollSink
    {
        private long _sum;

        public void OnBatch(SignalBatch batch)
        {
            if (batch is SignalBatch<CounterRow> counters)
            {
                foreach (var row in counters.Rows)
                {
                    if (row.CounterType is PerfCounterType.BulkCount or PerfCounterType.Counter && row.CounterName == LogFlushes
                        && row.CounterInstance != TotalInstance && watchdog._owner.Stream.Watches(row.CounterInstance))
                    {
                        _sum += row.Value;
                    }
                }

                if (batch.EndsPoll)
                {
                    watchdog.OnCounters(_sum, new DateTimeOffset(batch.TimestampUtc, TimeSpan.Zero));
                    _sum = 0;
                }
            }

            inner.OnBatch(batch);
        }

        public void OnSourceLoss(string instance, LossKind kind, long count) => inner.OnSourceLoss(instance, kind, count);
    }
}
