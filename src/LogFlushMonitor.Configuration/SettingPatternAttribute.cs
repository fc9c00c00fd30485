using System.Text.RegularExpressions;

namespace LogFlushMonitor.Configuration;

/// <summary>Text that must match <paramref name="pattern"/>, described to the operator as <paramref name="description"/>.</summary>
/// <param name="pattern">A regular expression the whole value must match.</param>
/// <param name="description">What the pattern allows, in words ("1 to 128 letters, digits, '_' or '-'").</param>
public sealed class SettingPatternAttribute(string pattern, string description) : SettingRuleAttribute
{
    private readonly Regex _pattern = new(pattern, RegexOptions.CultureInvariant, TimeSpan.FromSeconds(1));

    /// <inheritdoc />
    public override string Describe() => description;

    /// <inheritdoc />
    protected override string? Problem(object? value) => value is string s && !_pattern.IsMatch(s) ? Is(value) : null;
}
