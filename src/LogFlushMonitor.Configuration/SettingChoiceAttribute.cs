namespace LogFlushMonitor.Configuration;

/// <summary>Text that must be one of <see cref="Choices"/> (exactly as written unless <see cref="IgnoreCase"/>); empty only with <see cref="AllowEmpty"/>.</summary>
/// <param name="choices">The values allowed.</param>
public sealed class SettingChoiceAttribute(params string[] choices) : SettingRuleAttribute
{
    /// <summary>The values allowed.</summary>
    public IReadOnlyList<string> Choices { get; } = choices;

    /// <summary>Any case of a choice is taken.</summary>
    public bool IgnoreCase { get; set; }

    /// <summary>An empty value (not set: another source or a default applies) is taken.</summary>
    public bool AllowEmpty { get; set; }

    /// <inheritdoc />
    public override string Describe() => Choices.Count == 2 ? $"{Choices[0]} or {Choices[1]}" : string.Join(", ", Choices.Take(Choices.Count - 1)) + " or " + Choices[^1];

    /// <inheritdoc />
    protected override string? Problem(object? value) => value switch
    {
        null => null,
        string s when AllowEmpty && string.IsNullOrWhiteSpace(s) => null,
        string s when Choices.Contains(s, IgnoreCase ? StringComparer.OrdinalIgnoreCase : StringComparer.Ordinal) => null,
        _ => Is(value),
    };
}
