using System.Globalization;
using Microsoft.Extensions.Configuration;

namespace LogFlushMonitor.Hosting;

/// <summary>The form a configuration value must have to bind to its property.</summary>
internal enum ValueForm
{
    /// <summary>Any text (string).</summary>
    Text,

    /// <summary>true or false (bool).</summary>
    Boolean,

    /// <summary>A whole number (int).</summary>
    Integer,

    /// <summary>A number with an optional fraction (double).</summary>
    Number,

    /// <summary>A duration [d.]hh:mm:ss[.fffffff] (TimeSpan).</summary>
    Duration,

    /// <summary>One of a fixed set of names, any case (an enum).</summary>
    Choice,
}

/// <summary>
/// One node of the known configuration: a section with named children, a list (children 0, 1, ...) of one element
/// shape, or a value of a <see cref="ValueForm"/>. <see cref="ConfigurationSchema"/> holds the tree.
/// </summary>
internal sealed class ConfigurationNode
{
    private ConfigurationNode()
    {
    }

    /// <summary>Children of a section by name (case-insensitive, as configuration keys are); null for lists and values.</summary>
    public IReadOnlyDictionary<string, ConfigurationNode>? Children { get; private init; }

    /// <summary>The shape of every element of a list; null otherwise.</summary>
    public ConfigurationNode? Element { get; private init; }

    /// <summary>The value's form (values only).</summary>
    public ValueForm Form { get; private init; }

    /// <summary>The names a <see cref="ValueForm.Choice"/> accepts.</summary>
    public IReadOnlyList<string> Choices { get; private init; } = [];

    /// <summary>
    /// The value can hold a secret (a connection string with its password, OTLP headers with an API key): no message
    /// ever quotes it (<see cref="ConfigurationCheck.Quote"/>).
    /// </summary>
    public bool Secret { get; private init; }

    public bool IsValue => Children is null && Element is null;

    public static ConfigurationNode Section(params (string Name, ConfigurationNode Node)[] children) =>
        new() { Children = children.ToDictionary(c => c.Name, c => c.Node, StringComparer.OrdinalIgnoreCase) };

    public static ConfigurationNode ListOf(ConfigurationNode element) => new() { Element = element };

    public static ConfigurationNode Value(ValueForm form) => new() { Form = form };

    /// <summary>Text that may hold a secret: never quoted in a message.</summary>
    public static ConfigurationNode SecretText() => new() { Form = ValueForm.Text, Secret = true };

    public static ConfigurationNode Choice<TEnum>()
        where TEnum : struct, Enum => new() { Form = ValueForm.Choice, Choices = Enum.GetNames<TEnum>() };

    /// <summary>What a value of this node must look like, for messages ("a number such as 1.5").</summary>
    public string Expected => Form switch
    {
        ValueForm.Boolean => "true or false",
        ValueForm.Integer => "a whole number such as 10",
        ValueForm.Number => "a number such as 1 or 2.5",
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
        if (value.Length == 0)
        {
            return true;
        }

        var c = CultureInfo.InvariantCulture;
        return Form switch
        {
            ValueForm.Boolean => bool.TryParse(value, out _),
            ValueForm.Integer => int.TryParse(value, NumberStyles.Integer, c, out _),
            ValueForm.Number => double.TryParse(value, NumberStyles.Float, c, out _),
            ValueForm.Duration => TimeSpan.TryParse(value, c, out _),
            ValueForm.Choice => Choices.Contains(value.Trim(), StringComparer.OrdinalIgnoreCase),
            _ => true,
        };
    }
}

/// <summary>
/// Every configuration key the service reads, with the form of its value: the source of truth for strict binding
/// and for "unknown key" warnings (<see cref="ConfigurationCheck"/>). Kept by hand rather than found by reflection,
/// so it works in a trimmed NativeAOT build; ConfigurationSchemaTests checks it against the options types
/// (<see cref="MonitorOptions"/> and <see cref="SqlServer.SqlServerSourceOptions"/>): a property added there without
/// a line here fails that test.
/// </summary>
internal static class ConfigurationSchema
{
    private static ConfigurationNode Text => ConfigurationNode.Value(ValueForm.Text);

    private static ConfigurationNode Boolean => ConfigurationNode.Value(ValueForm.Boolean);

    private static ConfigurationNode Integer => ConfigurationNode.Value(ValueForm.Integer);

    private static ConfigurationNode Number => ConfigurationNode.Value(ValueForm.Number);

    private static ConfigurationNode Duration => ConfigurationNode.Value(ValueForm.Duration);

    /// <summary>The configuration root as <see cref="MonitorOptions"/> binds it.</summary>
    public static ConfigurationNode Root { get; } = ConfigurationNode.Section(
        ("Sources", ConfigurationNode.Section(
            ("Simulate", ConfigurationNode.Section(("Scenario", Text), ("Speed", Number), ("Seed", Integer), ("Duration", Duration))),
            ("Replay", ConfigurationNode.Section(("Path", Text), ("Speed", Number), ("RebaseToNow", Boolean))),
            ("SqlServer", SqlServer()))),
        ("Exporters", ConfigurationNode.Section(
            ("Prometheus", ConfigurationNode.Section(("Enabled", Boolean), ("Path", Text), ("ScopeLabels", Boolean))),
            ("Otlp", ConfigurationNode.Section(("Enabled", Boolean), ("Endpoint", Text), ("Protocol", Text), ("Interval", Duration), ("Timeout", Duration), ("Headers", ConfigurationNode.SecretText()), ("HistogramAggregation", Text))),
            ("CardinalityLimit", Integer))),
        ("Http", ConfigurationNode.Section(("Enabled", Boolean), ("Urls", Text), ("ReadinessGracePeriod", Duration))),
        ("Log", ConfigurationNode.Section(("Level", Text), ("Format", Text), ("File", Text), ("RetainedFiles", Integer), ("SummaryInterval", Duration))),
        ("Pipeline", ConfigurationNode.Section(("ChannelCapacity", Integer))),
        ("ServiceName", Text),
        ("ServiceInstanceId", Text));

    /// <summary>Binds the whole configuration as the service does (through the binding source generator), for tests.</summary>
    internal static MonitorOptions Bind(IConfiguration configuration) => configuration.Get<MonitorOptions>() ?? new MonitorOptions();

    /// <summary>Top-level sections that belong to others (Serilog's own settings): never reported as unknown.</summary>
    public static IReadOnlyList<string> ForeignSections { get; } = ["Serilog", "Logging"];

    private static ConfigurationNode SqlServer() => ConfigurationNode.Section(
        ("Instances", ConfigurationNode.ListOf(ConfigurationNode.Section(
            ("Name", Text),
            ("ConnectionString", ConfigurationNode.SecretText()),
            ("ConnectionStringEnvironmentVariable", Text),
            ("ConnectionStringFile", Text),
            ("Mode", ConfigurationNode.Choice<SqlServer.CollectionMode>()),
            ("SessionName", Text),
            ("DropSessionOnStop", Boolean),
            ("IncludeDatabases", ConfigurationNode.ListOf(Text)),
            ("ExcludeDatabases", ConfigurationNode.ListOf(Text)),
            ("Azure", Boolean),
            ("PollInterval", Duration),
            ("MaxMemoryKb", Integer),
            ("MaxDispatchLatencySeconds", Integer)))),
        ("Shard", Text),
        ("Counters", ConfigurationNode.ListOf(Text)),
        ("PollInterval", Duration),
        ("CommandTimeout", Duration),
        ("ConnectTimeout", Duration),
        ("MaxReconnectDelay", Duration),
        ("ReconnectDelay", Duration),
        ("FallbackErrorCount", Integer),
        ("FallbackWindow", Duration),
        ("HistogramSlots", Integer),
        ("MaxHistogramSessions", Integer),
        ("MaxStreamBufferBytes", Integer),
        ("ShutdownTimeout", Duration));
}
