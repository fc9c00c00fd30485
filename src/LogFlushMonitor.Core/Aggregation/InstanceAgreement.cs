using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Aggregation;

/// <summary>
/// A change of one agreement check of one instance, for the host to say once: a disagreement that lasted
/// (<see cref="AgreementCheck.Persistence"/> windows), its end (<see cref="Verdict"/> null), or a unit corrected.
/// </summary>
/// <param name="Instance">The instance.</param>
/// <param name="Quantity">What was compared.</param>
/// <param name="Verdict">The lasting verdict, or null when the events agree again.</param>
/// <param name="Events">The events' figure of the last window (flushes, bytes or seconds of waiting).</param>
/// <param name="Server">The server's figure of the same window.</param>
/// <param name="Correction">When a clean factor of 1,000 corrected the wait duration unit: what was done.</param>
public sealed record AgreementReport(string Instance, AgreementQuantity Quantity, AgreementVerdict? Verdict, double Events, double Server, string? Correction = null)
{
    /// <summary>The quantity's name as exported (attribute <c>quantity</c>).</summary>
    public string QuantityName => InstanceAgreement.Names[(int)Quantity];

    /// <summary>What most likely causes the verdict, for the log line and /readyz.</summary>
    public string LikelyCause => (Quantity, Verdict) switch
    {
        (_, AgreementVerdict.ThousandTimesMore or AgreementVerdict.ThousandTimesLess) => "a duration read in the wrong unit (milliseconds against microseconds)",
        (AgreementQuantity.Flushes or AgreementQuantity.FlushedBytes, _) when Events < Server =>
            "events missing: the stream was down or lost events the counters do not explain, or the session filters databases the counters include",
        (AgreementQuantity.Flushes or AgreementQuantity.FlushedBytes, _) =>
            "more events than the server counted: events attributed to a database the counters do not watch, or a field that moved",
        (AgreementQuantity.WriteLogTime, _) => "more WRITELOG time in events than the server counted for the whole instance: a duration unit or a field that moved",
        _ => "a disagreement between the events and the counter",
    };
}

/// <summary>
/// The four cross-checks of one instance (issue 19 item 2): the events' flushes, bytes and WRITELOG time against the
/// server's own cumulative figures, fed at each poll with the increases since the previous one. Under the
/// aggregator's lock. The event side only adds to fields (no allocation per event).
/// </summary>
internal sealed class InstanceAgreement
{
    /// <summary>Exported names of the quantities, by <see cref="AgreementQuantity"/>.</summary>
    internal static readonly string[] Names = ["flushes", "flushed_bytes", "writelog_time", "flush_wait_time"];

    private readonly string _instance;
    private readonly AgreementVerdict?[] _said = new AgreementVerdict?[Names.Length];
    private long _flushesAtCounters;
    private long _bytesAtCounters;
    private double _waitMsAtCounters;
    private double _waitMsAtWaitStats;
    private long _lostAtCounters = -1;
    private bool _waitStatsSeen;

    public InstanceAgreement(string instance, string exportName)
    {
        _instance = instance;
        Checks = [.. Names.Select((_, i) => new AgreementCheck((AgreementQuantity)i))];
        Tags = [.. Names.Select(n => new KeyValuePair<string, object?>[] { new(MetricAttributes.Instance, exportName), new(MetricAttributes.Quantity, n) })];
    }

    /// <summary>One check per quantity, by <see cref="AgreementQuantity"/>.</summary>
    public AgreementCheck[] Checks { get; }

    /// <summary>Export tags per quantity.</summary>
    public KeyValuePair<string, object?>[][] Tags { get; }

    /// <summary>log_flush_start events (and histogram bucket counts) so far.</summary>
    public long FlushStarts;

    /// <summary>Their write sizes, summed.</summary>
    public long FlushBytes;

    /// <summary>WRITELOG wait event durations so far, milliseconds, after <see cref="WaitScale"/>.</summary>
    public double WriteLogMs;

    /// <summary>The factor applied to wait durations (1 until a clean factor of 1,000 against the server corrected it).</summary>
    public double WaitScale = 1;

    /// <summary>
    /// Whether an instance-wide histogram target ("(all)") delivered flushes: it counts every database its predicate lets
    /// through, the engine's hidden databases too, and it cannot say which, so their flushes may be in the events' figure.
    /// </summary>
    public bool InstanceWideBuckets;

    /// <summary>
    /// At a counter poll: the increases since the previous poll of the three counters over the databases the session
    /// watches, and, for an instance-wide histogram target, what _Total counted beyond every database listed
    /// (<paramref name="serverUnlisted"/> flushes and <paramref name="serverUnlistedBytes"/> bytes: hidden databases the
    /// target may have counted, or databases filtered out; a surplus up to that is no disagreement).
    /// </summary>
    public void OnCounters(long serverFlushes, long serverBytes, long serverFlushWaitMs, long lostTotal, ref List<AgreementReport>? result,
        long serverUnlisted = 0, long serverUnlistedBytes = 0)
    {
        var first = _lostAtCounters < 0;
        var flushes = FlushStarts - _flushesAtCounters;
        var bytes = FlushBytes - _bytesAtCounters;
        var waitMs = WriteLogMs - _waitMsAtCounters;
        var lost = _lostAtCounters < 0 ? 0 : lostTotal - _lostAtCounters;
        (_flushesAtCounters, _bytesAtCounters, _waitMsAtCounters, _lostAtCounters) = (FlushStarts, FlushBytes, WriteLogMs, lostTotal);
        if (first)
        {
            return; // the server's first reading is a baseline: its increase says nothing about the events so far
        }

        var averageSize = flushes > 0 ? (double)bytes / flushes : 0;
        var (extra, extraBytes) = InstanceWideBuckets ? (Math.Max(0, serverUnlisted), Math.Max(0, serverUnlistedBytes)) : (0, 0);
        Observe(AgreementQuantity.Flushes, flushes, serverFlushes, lost, ref result, extra);
        Observe(AgreementQuantity.FlushedBytes, bytes, serverBytes, lost * averageSize, ref result, extraBytes);
        // Waits are judged in seconds (AgreementCheck's thresholds).
        Observe(AgreementQuantity.FlushWaitTime, waitMs / 1000, serverFlushWaitMs / 1000.0, 0, ref result);
    }

    /// <summary>At a wait stats poll: WRITELOG's wait_time_ms increase since the previous poll.</summary>
    public void OnWaitStats(long serverWriteLogMs, ref List<AgreementReport>? result)
    {
        var waitMs = WriteLogMs - _waitMsAtWaitStats;
        _waitMsAtWaitStats = WriteLogMs;
        if (!_waitStatsSeen)
        {
            _waitStatsSeen = true;
            return;
        }

        Observe(AgreementQuantity.WriteLogTime, waitMs / 1000, serverWriteLogMs / 1000.0, 0, ref result);
    }

    private void Observe(AgreementQuantity quantity, double events, double server, double lost, ref List<AgreementReport>? result, double extra = 0)
    {
        var check = Checks[(int)quantity];
        if (check.Observe(events, server, lost, extra) is null)
        {
            return;
        }

        var reported = check.Reported;
        if (reported == _said[(int)quantity])
        {
            return;
        }

        _said[(int)quantity] = reported;
        var (e, s) = check.LastWindow;
        string? correction = null;
        if (quantity is AgreementQuantity.WriteLogTime or AgreementQuantity.FlushWaitTime
            && reported is AgreementVerdict.ThousandTimesMore or AgreementVerdict.ThousandTimesLess)
        {
            // The wait events' duration unit is the only one of these figures a unit can be wrong in (flushes are counts,
            // bytes are bytes): correct it, and judge afresh from the next window.
            var factor = reported == AgreementVerdict.ThousandTimesMore ? 0.001 : 1000;
            WaitScale *= factor;
            correction = $"wait durations are now multiplied by {WaitScale:G}";
            foreach (var q in (ReadOnlySpan<AgreementQuantity>)[AgreementQuantity.WriteLogTime, AgreementQuantity.FlushWaitTime])
            {
                Checks[(int)q].Restart();
                _said[(int)q] = null;
            }
        }

        (result ??= []).Add(new AgreementReport(_instance, quantity, reported, e, s, correction));
    }
}
