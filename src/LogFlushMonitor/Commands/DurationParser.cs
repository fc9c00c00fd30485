using System.Globalization;

namespace LogFlushMonitor.Commands;

/// <summary>Parses durations as a person types them: 90s, 5m, 1h, 500ms, or 00:05:00.</summary>
public static class DurationParser
{
    /// <summary>Parses <paramref name="text"/>; returns false with no exception on bad input.</summary>
    public static bool TryParse(string? text, out TimeSpan value)
    {
        value = default;
        if (string.IsNullOrWhiteSpace(text))
        {
            return false;
        }

        text = text.Trim();
        if (text.Contains(':', StringComparison.Ordinal))
        {
            return TimeSpan.TryParse(text, CultureInfo.InvariantCulture, out value) && value > TimeSpan.Zero;
        }

        var (number, unit) = text.EndsWith("ms", StringComparison.OrdinalIgnoreCase) ? (text[..^2], 0.001)
            : text.EndsWith('s') ? (text[..^1], 1)
            : text.EndsWith('m') ? (text[..^1], 60)
            : text.EndsWith('h') ? (text[..^1], 3600)
            : (text, 1.0);
        // Past TimeSpan's range (99999999999h) TimeSpan.FromSeconds would throw: such a duration is not one.
        if (!double.TryParse(number, NumberStyles.Float, CultureInfo.InvariantCulture, out var n) || n <= 0 || double.IsInfinity(n)
            || n * unit >= TimeSpan.MaxValue.TotalSeconds)
        {
            return false;
        }

        value = TimeSpan.FromSeconds(n * unit);
        return true;
    }
}
