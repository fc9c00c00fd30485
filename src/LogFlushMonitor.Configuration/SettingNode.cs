using System.Globalization;

namespace LogFlushMonitor.Configuration;

/// <summary>The form a configuration value must have to bind to its property.</summary>
public enum ValueForm
{
    /// <summary>Any text (string).</summary>
    Text,

    /// <summary>true or false (bool).</summary>
    Boolean,

    /// <summary>A whole number (int).</summary>
    Integer,

    /// <summary>A number with an optional fraction, written with a dot (double).</summary>
    Number,

    /// <summary>A duration [d.]hh:mm:ss[.fffffff] (TimeSpan).</summary>
    Duration,

    /// <summary>One of a fixed set of names, any case (an enum).</summary>
    Choice,
}

/// <summary>
/// One node of the known configuration: a section with named children, a list (children 0, 1, ...) of one element
/// shape, or a value of a <see cref="ValueForm"/> with its default and rules. Built by the generated <c>Schema</c> of each
/// <see cref="SettingsSectionAttribute"/> class, never by hand.
/// </summary>
public sealed class SettingNode
{
    private readonly Func<object?>? _default;

    private SettingNode(Func<object?>? defaultValue = null) => _default = defaultValue;

    /// <summary>Children of a section by name (case-insensitive, as configuration keys are), in declaration order; null for lists and values.</summary>
    public IReadOnlyDictionary<string, SettingNode>? Children { get; private init; }

    /// <summary>The shape of every element of a list; null otherwise.</summary>
    public SettingNode? Element { get; private init; }

    /// <summary>The value's form (values only).</summary>
    public ValueForm Form { get; private init; }

    /// <summary>The names a <see cref="ValueForm.Choice"/> accepts.</summary>
    public IReadOnlyList<string> Choices { get; private init; } = [];

    /// <summary>The value can hold a secret (<see cref="SecretAttribute"/>): no message ever quotes it.</summary>
    public bool Secret { get; private init; }

    /// <summary>The rules the value must meet (its <see cref="SettingRuleAttribute"/>s).</summary>
    public IReadOnlyList<SettingRuleAttribute> Rules { get; private init; } = [];

    /// <summary>Whether this is a value (not a section or a list).</summary>
    public bool IsValue => Children is null && Element is null;

    /// <summary>The default as configuration would write it (00:00:15, 2.5, true, Auto), or null when it is empty (not set).</summary>
    public string? DefaultText => Format(_default?.Invoke());

    /// <summary>A section of <paramref name="children"/>.</summary>
    public static SettingNode Section(params (string Name, SettingNode Node)[] children)
    {
        ArgumentNullException.ThrowIfNull(children);
        var map = new OrderedDictionary<string, SettingNode>(StringComparer.OrdinalIgnoreCase);
        foreach (var (name, node) in children)
        {
            map.Add(name, node);
        }

        return new() { Children = map };
    }

    /// <summary>A list of <paramref name="element"/>s.</summary>
    public static SettingNode ListOf(SettingNode element) => new() { Element = element };

    /// <summary>A value of <paramref name="form"/>; <paramref name="defaultValue"/> reads it from a new instance of its class.</summary>
    public static SettingNode Value(ValueForm form, Func<object?>? defaultValue = null, bool secret = false, SettingRuleAttribute[]? rules = null, string[]? choices = null) =>
        new(defaultValue) { Form = form, Secret = secret, Rules = rules ?? [], Choices = choices ?? [] };

    /// <summary>What a value of this node must look like, for messages ("a number such as 1.5").</summary>
    public string Expected => Form switch
    {
        ValueForm.Boolean => "true or false",
        ValueForm.Integer => "a whole number such as 10",
        ValueForm.Number => Numbers.Expected,
        ValueForm.Duration => "a duration hh:mm:ss such as 00:05:00 (or d.hh:mm:ss, e.g. 1.00:00:00 for a day)",
        ValueForm.Choice => "one of " + string.Join(", ", Choices),
        _ => "text",
    };

    /// <summary>
    /// Whether <paramref name="value"/> binds to this node's property: the same parsing the configuration binder uses
    /// (invariant culture), except that a choice must be one of its names (the binder would take any number). An empty
    /// value is accepted: the binder leaves the default (or null) in place, and validation decides whether that will do.
    /// </summary>
    public bool Accepts(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        if (value.Length == 0)
        {
            return true;
        }

        var c = CultureInfo.InvariantCulture;
        return Form switch
        {
            ValueForm.Boolean => bool.TryParse(value, out _),
            ValueForm.Integer => int.TryParse(value, NumberStyles.Integer, c, out _),
            ValueForm.Number => Numbers.TryParse(value, out _),
            ValueForm.Duration => TimeSpan.TryParse(value, c, out _),
            ValueForm.Choice => Choices.Contains(value.Trim(), StringComparer.OrdinalIgnoreCase),
            _ => true,
        };
    }

    /// <summary>A value as configuration writes it: durations d.hh:mm:ss, numbers with a dot; null for null, empty text and lists.</summary>
    public static string? Format(object? value) => value switch
    {
        null => null,
        string s => s.Length == 0 ? null : s,
        bool b => b ? "true" : "false",
        TimeSpan t => t.ToString("c", CultureInfo.InvariantCulture),
        double d => d.ToString("R", CultureInfo.InvariantCulture),
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        System.Collections.IEnumerable => null,
        _ => value.ToString(),
    };
}
