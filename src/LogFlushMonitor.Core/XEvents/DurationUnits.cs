namespace LogFlushMonitor.Core.XEvents;

/// <summary>The unit a server reports an event's duration field in.</summary>
public enum DurationUnit
{
    /// <summary>Milliseconds.</summary>
    Milliseconds,

    /// <summary>Microseconds.</summary>
    Microseconds,
}

/// <summary>
/// Units of the duration fields when nothing better is known: the catalog's description where it names one (the live
/// source reads <c>sys.dm_xe_object_columns</c>), else milliseconds. Milliseconds is what the public tools that read
/// these fields use (docs/sqlserver.md, "Duration units"). A .xel file's own field descriptions, when they name a unit,
/// override these; for <c>log_flush_complete.duration</c> the start/complete pairs settle the unit in the end
/// (<see cref="DurationUnitEvidence"/>).
/// </summary>
public sealed record XEventUnits
{
    /// <summary>log_flush_complete.duration (milliseconds: Microsoft support's AGLatency tool multiplies it by 1000 to get µs).</summary>
    public DurationUnit FlushComplete { get; init; } = DurationUnit.Milliseconds;

    /// <summary>wait_completed.duration (milliseconds, as sp_HumanEvents reads it).</summary>
    public DurationUnit WaitCompleted { get; init; } = DurationUnit.Milliseconds;

    /// <summary>wait_info.duration (milliseconds: Microsoft support's "How It Works" post on sqlos.wait_info).</summary>
    public DurationUnit WaitInfo { get; init; } = DurationUnit.Milliseconds;
}

/// <summary>The one rule for reading a unit out of a field description and for converting a raw duration.</summary>
public static class DurationUnits
{
    /// <summary>
    /// The unit a field description names, or null when it names none. Recognised: "microsecond(s)", "millisecond(s)",
    /// and the abbreviations "(us)", "(µs)", "(ms)" or "in us"/"in ms". Descriptions are the server's English text.
    /// </summary>
    public static DurationUnit? Named(string? description)
    {
        if (string.IsNullOrWhiteSpace(description))
        {
            return null;
        }

        if (description.Contains("microsecond", StringComparison.OrdinalIgnoreCase)
            || ContainsWord(description, "us") || ContainsWord(description, "µs"))
        {
            return DurationUnit.Microseconds;
        }

        return description.Contains("millisecond", StringComparison.OrdinalIgnoreCase) || ContainsWord(description, "ms")
            ? DurationUnit.Milliseconds
            : null;
    }

    /// <summary><paramref name="value"/> in <paramref name="unit"/> as <see cref="TimeSpan"/> ticks (saturating, never negative).</summary>
    public static long ToTicks(ulong value, DurationUnit unit) =>
        unit == DurationUnit.Milliseconds
            ? (long)Math.Min(value, (ulong)(long.MaxValue / TimeSpan.TicksPerMillisecond)) * TimeSpan.TicksPerMillisecond
            : (long)Math.Min(value, (ulong)(long.MaxValue / 10)) * 10;

    /// <summary>The unit's name as logs and reports write it.</summary>
    public static string Name(DurationUnit unit) => unit == DurationUnit.Milliseconds ? "milliseconds" : "microseconds";

    /// <summary>"us" as a word of its own ("in us", "(us)"), not inside "status" or "thus".</summary>
    private static bool ContainsWord(string text, string word)
    {
        var at = 0;
        while ((at = text.IndexOf(word, at, StringComparison.OrdinalIgnoreCase)) >= 0)
        {
            var before = at == 0 || !char.IsLetter(text[at - 1]);
            var end = at + word.Length;
            var after = end == text.Length || !char.IsLetter(text[end]);
            if (before && after)
            {
                return true;
            }

            at = end;
        }

        return false;
    }
}
