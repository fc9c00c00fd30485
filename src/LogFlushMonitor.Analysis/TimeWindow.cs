using System.Globalization;

namespace LogFlushMonitor.Analysis;

/// <summary>
/// The part of an input's time that counts (<c>compare --before-window</c>, <c>--after-window</c>): an absolute range
/// (<c>2026-11-22T10:00:00Z/2026-11-22T10:30:00Z</c>) or a time of day in UTC (<c>10:00-10:30</c>, every day the input
/// covers; <c>23:30-00:30</c> wraps midnight). The start is included, the end is not.
/// </summary>
internal readonly record struct TimeWindow
{
    private readonly long _from;
    private readonly long _to;

    private TimeWindow(long from, long to, bool timeOfDay, string text)
    {
        _from = from;
        _to = to;
        IsTimeOfDay = timeOfDay;
        Text = text;
    }

    /// <summary>Everything (no window).</summary>
    public static TimeWindow All { get; } = new(long.MinValue, long.MaxValue, false, "");

    /// <summary>Whether the window is a time of day (every day) rather than one range.</summary>
    public bool IsTimeOfDay { get; }

    /// <summary>The window as given (empty for <see cref="All"/>).</summary>
    public string Text { get; }

    /// <summary>Whether the window keeps everything.</summary>
    public bool IsAll => !IsTimeOfDay && _from == long.MinValue && _to == long.MaxValue;

    /// <summary>The length of one occurrence: the range's, or the time of day's (null for <see cref="All"/>).</summary>
    public TimeSpan? Length => IsAll ? null : IsTimeOfDay ? TimeSpan.FromTicks(((_to - _from) % TimeSpan.TicksPerDay + TimeSpan.TicksPerDay) % TimeSpan.TicksPerDay) : TimeSpan.FromTicks(_to - _from);

    /// <summary>Whether an event at <paramref name="ticks"/> (UTC) lies in the window.</summary>
    public bool Contains(long ticks)
    {
        if (!IsTimeOfDay)
        {
            return ticks >= _from && ticks < _to;
        }

        var t = ticks % TimeSpan.TicksPerDay;
        return _from <= _to ? t >= _from && t < _to : t >= _from || t < _to;
    }

    /// <summary>Reads <paramref name="text"/>; false with a message naming what is wrong and the forms accepted.</summary>
    public static bool TryParse(string text, string option, out TimeWindow window, out string? problem)
    {
        window = All;
        problem = null;
        var forms = $"{option} takes a time of day in UTC, HH:MM-HH:MM (e.g. 10:00-10:30, every day the input covers), or a range FROM/TO in ISO 8601 (e.g. 2026-11-22T10:00:00Z/2026-11-22T10:30:00Z)";
        var slash = text.IndexOf('/', StringComparison.Ordinal);
        if (slash > 0)
        {
            if (!DateTime.TryParse(text[..slash], CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out var from)
                || !DateTime.TryParse(text[(slash + 1)..], CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal, out var to))
            {
                problem = $"{option} '{text}' is not a range of two times: {forms}.";
                return false;
            }

            if (to <= from)
            {
                problem = $"{option} '{text}' ends before it starts: the second time must be later than the first.";
                return false;
            }

            window = new TimeWindow(from.Ticks, to.Ticks, false, text);
            return true;
        }

        var dash = text.IndexOf('-', StringComparison.Ordinal);
        if (dash > 0 && TimeOfDay(text[..dash]) is { } start && TimeOfDay(text[(dash + 1)..]) is { } end)
        {
            if (start == end)
            {
                problem = $"{option} '{text}' is empty: the start and the end are the same time.";
                return false;
            }

            window = new TimeWindow(start, end, true, text);
            return true;
        }

        problem = $"{option} '{text}' is not a window: {forms}.";
        return false;
    }

    private static long? TimeOfDay(string text) =>
        TimeSpan.TryParseExact(text.Trim(), ["h\\:mm", "hh\\:mm", "h\\:mm\\:ss", "hh\\:mm\\:ss"], CultureInfo.InvariantCulture, out var t) && t < TimeSpan.FromDays(1)
            ? t.Ticks
            : null;
}
