using System.ComponentModel.DataAnnotations;

namespace LogFlushMonitor.Configuration;

/// <summary>
/// A rule a configuration value must meet, written on its property and checked by the source-generated options
/// validator ([OptionsValidator]; no reflection, NativeAOT-safe). A value that breaks it gets one message naming the key,
/// the value (never for a secret), what to use instead, the default, and where to set it: the environment variable too.
/// </summary>
[AttributeUsage(AttributeTargets.Property, AllowMultiple = false)]
public abstract class SettingRuleAttribute : ValidationAttribute
{
    /// <summary>Why the rule exists or an example, added to the fix ("1 = real time").</summary>
    public string? Hint { get; set; }

    /// <summary>What the rule allows, as docs/configuration.md says it ("0.001 to 1000").</summary>
    public abstract string Describe();

    /// <summary>Why <paramref name="value"/> breaks the rule ("is 5000"), or null when it does not. A null value (not set) meets every rule but a required one.</summary>
    protected abstract string? Problem(object? value);

    /// <summary>What to do instead ("Use 0.001 to 1000").</summary>
    protected virtual string Fix => "Use " + Describe();

    /// <inheritdoc />
    protected sealed override ValidationResult? IsValid(object? value, ValidationContext validationContext)
    {
        ArgumentNullException.ThrowIfNull(validationContext);
        if (Problem(value) is not { } problem)
        {
            return ValidationResult.Success;
        }

        var key = SettingKeys.KeyOf(validationContext.DisplayName);
        var defaultText = validationContext.ObjectInstance is ISettingsSection section && validationContext.MemberName is { } member
            && section.GetSettingsSchema().Children!.TryGetValue(member, out var node) ? node.DefaultText : null;
        var hint = Hint is null ? "" : $" ({Hint})";
        var shownDefault = defaultText is null ? "" : $", default {defaultText}";
        return new ValidationResult($"{key} {problem}. {Fix}{hint}{shownDefault} ({SettingKeys.Where(key)}).");
    }

    /// <summary>"is X", with X as a message may show it.</summary>
    protected static string Is(object? value) => "is " + SettingNode.Format(value) switch
    {
        null => "empty",
        var text when value is string => SettingKeys.Quote(text),
        var text => text,
    };
}
