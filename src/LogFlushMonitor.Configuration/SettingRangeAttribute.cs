using System.Globalization;

namespace LogFlushMonitor.Configuration;

/// <summary>
/// A number or a duration from <see cref="Minimum"/> to <see cref="Maximum"/> (both included); with
/// <see cref="AllowZero"/>, 0 too (0 meaning off or as fast as possible). NaN is never in range. Durations are written
/// as configuration takes them, <c>hh:mm:ss</c> or <c>d.hh:mm:ss</c>.
/// </summary>
public sealed class SettingRangeAttribute : SettingRuleAttribute
{
    private readonly double _minimum;
    private readonly double _maximum;
    private readonly bool _duration;

    /// <summary>A whole number from <paramref name="minimum"/> to <paramref name="maximum"/>.</summary>
    public SettingRangeAttribute(int minimum, int maximum)
    {
        (_minimum, _maximum) = (minimum, maximum);
        (Minimum, Maximum) = (Text(minimum), Text(maximum));
    }

    /// <summary>A number from <paramref name="minimum"/> to <paramref name="maximum"/>.</summary>
    public SettingRangeAttribute(double minimum, double maximum)
    {
        (_minimum, _maximum) = (minimum, maximum);
        (Minimum, Maximum) = (Text(minimum), Text(maximum));
    }

    /// <summary>A duration from <paramref name="minimum"/> to <paramref name="maximum"/> (invariant <c>d.hh:mm:ss.fffffff</c>).</summary>
    public SettingRangeAttribute(string minimum, string maximum)
    {
        _duration = true;
        (_minimum, _maximum) = (TimeSpan.Parse(minimum, CultureInfo.InvariantCulture).Ticks, TimeSpan.Parse(maximum, CultureInfo.InvariantCulture).Ticks);
        (Minimum, Maximum) = (minimum, maximum);
    }

    /// <summary>The smallest value allowed, as written.</summary>
    public string Minimum { get; }

    /// <summary>The largest value allowed, as written.</summary>
    public string Maximum { get; }

    /// <summary>0 is allowed too, outside the range.</summary>
    public bool AllowZero { get; set; }

    /// <inheritdoc />
    public override string Describe() => AllowZero ? $"0, or {Minimum} to {Maximum}" : $"{Minimum} to {Maximum}";

    /// <inheritdoc />
    protected override string? Problem(object? value)
    {
        double? number = value switch
        {
            null => null,
            int i when !_duration => i,
            long l when !_duration => l,
            double d when !_duration => d,
            TimeSpan t when _duration => t.Ticks,
            _ => throw new InvalidOperationException($"{nameof(SettingRangeAttribute)} does not apply to a {value.GetType().Name} here."),
        };
        return number is not { } n || (AllowZero && n == 0) || (n >= _minimum && n <= _maximum) ? null : Is(value);
    }

    private static string Text(double value) => value.ToString(CultureInfo.InvariantCulture);
}
