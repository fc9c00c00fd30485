using System.Globalization;

namespace LogFlushMonitor.Configuration;

/// <summary>
/// The one rule for a number a person types, in configuration (Sources:Simulate:Speed) and on the command line (--speed):
/// digits with an optional fraction after a dot, an optional sign and exponent; never a comma (in many cultures a
/// decimal comma: "1,5" must not become 15 through a thousands separator) and never the culture's own forms.
/// </summary>
public static class Numbers
{
    /// <summary>Parses <paramref name="text"/> by the rule; false when it is not such a number.</summary>
    public static bool TryParse(string? text, out double value) =>
        double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value);

    /// <summary>How the rule is described in messages.</summary>
    public const string Expected = "a number such as 1 or 2.5 (a dot, never a comma)";
}
