using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// What the file itself says a plausible event time is (docs/xel-format.md, "Timestamps the file cannot produce"):
/// the events of one buffer were written between the buffer's first use and its dispatch, so they lie close together
/// (a session dispatches within its MAX_DISPATCH_LATENCY, 30 s by default). An event more than <see cref="Tolerance"/>
/// from the median time of its buffer's events is a damaged clock value (a flipped or overwritten byte of the tick
/// count), not an event from another year; so is a duration whose start lies more than <see cref="Tolerance"/> before
/// that median. The buffer headers carry no time (their first 8 bytes are 0 in the real files), and the package start
/// time only bounds the clock from below (the tick count is unsigned), so the buffer's own events are the reference.
/// </summary>
public static class XelClock
{
    /// <summary>How far from its buffer's median time an event may lie (and a duration may reach back): one day.</summary>
    public static readonly TimeSpan Tolerance = TimeSpan.FromDays(1);

    /// <summary>
    /// The fewest events with a valid clock a buffer needs for its median to be judged by: with one or two there is no
    /// majority to tell the damaged value from the good one, and their times are not judged.
    /// </summary>
    public const int MinimumEvents = 3;

    /// <summary>The events whose time a buffer's median is taken over (a larger buffer is sampled evenly).</summary>
    internal const int MaxSample = 4096;

    /// <summary>No reference: the buffer was not measured or has too few events.</summary>
    internal const long None = long.MinValue;
}

/// <summary>
/// Measures a buffer's reference time before its records are delivered: the median of its events' times (UTC ticks),
/// walking the records as the decoder frames them and stopping where the decoder would. One per decoder; the sample
/// array is reused (it grows only for a buffer with more events than any before, up to <see cref="XelClock.MaxSample"/>),
/// so measuring allocates nothing per event. The result depends on the buffer's bytes only, so every reader and every
/// split of buffers between threads judges an event the same way.
/// </summary>
internal sealed class BufferClock
{
    private static readonly long FileTimeEpochTicks = new DateTime(1601, 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks;

    private long[] _sample = new long[64];

    /// <summary>The median time of the measured buffer's events (UTC ticks), or <see cref="XelClock.None"/>.</summary>
    public long Reference { get; private set; } = XelClock.None;

    /// <summary>Forgets the reference (a buffer that is not measured).</summary>
    public void Clear() => Reference = XelClock.None;

    /// <summary>Measures the records of the data area [<paramref name="pos"/>, <paramref name="end"/>).</summary>
    public void Measure(ReadOnlySpan<byte> buffer, int pos, int end, XEventMetadata metadata)
    {
        Reference = XelClock.None;
        if (pos < 0 || end > buffer.Length || pos > end)
        {
            return;
        }

        var count = 0;
        var stride = 1;
        var index = 0;
        uint lastRid = 0;
        XEventPackage? package = null;
        var haveLast = false;
        while (end - pos >= XelConstants.RecordHeaderLength)
        {
            var rid = Bytes.U32(buffer, pos);
            var flags = Bytes.U32(buffer, pos + 4);
            var ticks = Bytes.U64(buffer, pos + 12);
            var payloadLength = Bytes.U32(buffer, pos + 20);
            var payloadStart = pos + XelConstants.RecordHeaderLength;
            if (rid >> 28 != 0 || (flags & XelConstants.RecordVersionMask) != XelConstants.SupportedVersion || payloadLength > (uint)(end - payloadStart))
            {
                break;
            }

            var next = payloadStart + (int)payloadLength;
            if ((flags & XelConstants.HasActionsFlag) != 0 && !SkipActions(buffer, ref next, end))
            {
                break;
            }

            if (!haveLast || rid != lastRid)
            {
                package = metadata.EventByRid(rid)?.Package;
                lastRid = rid;
                haveLast = true;
            }

            if (package is not null && package.TryTicksToFileTime(ticks, out var fileTime) && index++ % stride == 0)
            {
                if (count == _sample.Length)
                {
                    if (count < XelClock.MaxSample)
                    {
                        Array.Resize(ref _sample, count * 2);
                    }
                    else
                    {
                        // Keep every other one and take every other one from now on: an even sample of the whole buffer.
                        for (var i = 0; i < count / 2; i++)
                        {
                            _sample[i] = _sample[2 * i];
                        }

                        count /= 2;
                        stride *= 2;
                    }
                }

                if (count < _sample.Length)
                {
                    _sample[count++] = fileTime + FileTimeEpochTicks;
                }
            }

            pos = next;
        }

        if (count >= XelClock.MinimumEvents)
        {
            Reference = Median(_sample.AsSpan(0, count));
        }
    }

    private static bool SkipActions(ReadOnlySpan<byte> buffer, ref int next, int end)
    {
        while (true)
        {
            if (end - next < 8)
            {
                return false;
            }

            var actionRid = Bytes.U32(buffer, next);
            var length = Bytes.U32(buffer, next + 4);
            if (length > (uint)(end - next - 8))
            {
                return false;
            }

            next += 8 + (int)length;
            if (actionRid == XelConstants.ActionListTerminator)
            {
                return true;
            }

            if (actionRid >> 28 != 1)
            {
                return false;
            }
        }
    }

    /// <summary>The lower median, found in place in linear expected time (the events are mostly in time order already).</summary>
    internal static long Median(Span<long> values)
    {
        var k = (values.Length - 1) / 2;
        int lo = 0, hi = values.Length - 1;
        while (lo < hi)
        {
            // Median of three as the pivot: sorted or nearly sorted input (the common case) splits evenly.
            var mid = lo + ((hi - lo) / 2);
            var pivot = MedianOf(values[lo], values[mid], values[hi]);
            int i = lo, j = hi;
            while (i <= j)
            {
                while (values[i] < pivot)
                {
                    i++;
                }

                while (values[j] > pivot)
                {
                    j--;
                }

                if (i <= j)
                {
                    (values[i], values[j]) = (values[j], values[i]);
                    i++;
                    j--;
                }
            }

            if (k <= j)
            {
                hi = j;
            }
            else if (k >= i)
            {
                lo = i;
            }
            else
            {
                return values[k];
            }
        }

        return values[k];
    }

    private static long MedianOf(long a, long b, long c) => Math.Max(Math.Min(a, b), Math.Min(Math.Max(a, b), c));
}
