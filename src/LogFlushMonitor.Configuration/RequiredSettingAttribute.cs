namespace LogFlushMonitor.Configuration;

/// <summary>A value that must be given: not empty or white space.</summary>
/// <param name="fix">What to give ("give each instance a unique name (it is exported as sqlserver.instance.name)").</param>
public sealed class RequiredSettingAttribute(string fix) : SettingRuleAttribute
{
    /// <inheritdoc />
    public override string Describe() => "required";

    /// <inheritdoc />
    protected override string Fix => char.ToUpperInvariant(fix[0]) + fix[1..];

    /// <inheritdoc />
    protected override string? Problem(object? value) => value is null || (value is string s && string.IsNullOrWhiteSpace(s)) ? "is empty" : null;
}
