using LogFlushMonitor.Configuration;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Fleet;

namespace LogFlushMonitor.Tests.Hosting;

/// <summary>
/// docs/configuration.md against the schema generated from the options types: every key has one row, with its type, its
/// default as the type writes it and each rule's range or choices in its meaning; no row names a key the service does
/// not read. Defaults and ranges are written once, on the types: the table follows them or this test fails.
/// </summary>
public class ConfigurationDocsTests
{
    private static readonly Dictionary<string, string[]> Row = ReadTable();

    /// <summary>Every value key of the schema; a list of values is one key ("IncludeDatabases"), with type list.</summary>
    private static IEnumerable<(string Key, SettingNode Node, bool List)> SchemaKeys() =>
        ConfigurationSchema.Keys(ConfigurationSchema.Root).Select(k => k.Key.EndsWith(":N", StringComparison.Ordinal) ? (k.Key[..^2], k.Node, true) : (k.Key, k.Node, false));

    public static TheoryData<string> Keys() => [.. SchemaKeys().Select(k => k.Key)];

    [Theory]
    [MemberData(nameof(Keys))]
    public void Each_key_has_a_row_with_its_type_default_and_rules(string key)
    {
        var (_, node, list) = SchemaKeys().Single(k => k.Key == key);
        Assert.True(Row.TryGetValue(key, out var cells), $"docs/configuration.md has no row for `{key}`");
        var (type, defaultCell, meaning) = (cells[1], Plain(cells[2]), Plain(cells[3]));

        string[] types = list ? ["list"] : node.Form switch
        {
            ValueForm.Text => ["string", "path", "URL"],
            ValueForm.Boolean => ["bool"],
            ValueForm.Integer => ["int"],
            ValueForm.Number => ["number"],
            ValueForm.Duration => ["timespan"],
            _ => ["choice"],
        };
        Assert.True(types.Contains(type), $"`{key}` is a {node.Form}{(list ? " list" : "")}: its type should be {string.Join(" or ", types)}, not {type}");

        if (node.Rules.OfType<RequiredSettingAttribute>().Any())
        {
            Assert.Equal("(required)", defaultCell);
        }
        else if (list || node.DefaultText is null)
        {
            Assert.True(defaultCell.StartsWith("empty", StringComparison.Ordinal), $"`{key}` is empty by default; the table says {defaultCell}");
        }
        else
        {
            var d = node.DefaultText;
            Assert.True(defaultCell == d || defaultCell.StartsWith(d + " ", StringComparison.Ordinal), $"`{key}` defaults to {d} (on the options type); the table says {defaultCell}");
        }

        foreach (var rule in node.Rules.Where(r => r is not RequiredSettingAttribute))
        {
            Assert.True(meaning.Contains(Plain(rule.Describe()), StringComparison.Ordinal), $"`{key}` takes {rule.Describe()} ({rule.GetType().Name}); its meaning does not say so: {meaning}");
        }

        if (node.Choices.Count > 0)
        {
            Assert.All(node.Choices, c => Assert.Contains(c, meaning, StringComparison.Ordinal));
        }

        if (node.Secret)
        {
            Assert.Contains("never logged", meaning, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Every_row_names_a_key_the_service_reads()
    {
        var keys = SchemaKeys().Select(k => k.Key).ToHashSet(StringComparer.Ordinal);
        var unknown = Row.Keys.Where(k => !k.StartsWith("Serilog:", StringComparison.Ordinal) && !k.StartsWith('(') && !keys.Contains(k)).ToList();
        Assert.True(unknown.Count == 0, "rows for keys the options types do not have: " + string.Join(", ", unknown));
    }

    [Fact]
    public void A_value_out_of_its_range_is_named_with_the_range_the_default_and_the_variable()
    {
        var options = new MonitorOptions { Sources = { Simulate = { Scenario = "mixed" } }, Pipeline = { ChannelCapacity = 5 } };
        var result = new MonitorOptionsValidator(SimulationScenarios.Names).Validate(null, options);

        Assert.Equal(
            "Pipeline:ChannelCapacity is 5. Use 1024 to 16777216, default 65536 (configuration key Pipeline:ChannelCapacity, environment variable LOGFLUSHMONITOR__PIPELINE__CHANNELCAPACITY).",
            Assert.Single(result.Failures!));

        var fleet = new SqlServerSourceOptions
        {
            Instances =
            [
                new SqlServerInstanceOptions { Name = "a", ConnectionStringEnvironmentVariable = "A" },
                new SqlServerInstanceOptions { Name = "b", ConnectionStringEnvironmentVariable = "B", MaxMemoryKb = 0, SessionName = "x y" },
            ],
        };
        Assert.Equal(
            [
                "Sources:SqlServer:Instances:1:SessionName is 'x y'. Use 1 to 128 letters, digits, '_' or '-', default LogFlushMonitor (configuration key Sources:SqlServer:Instances:1:SessionName, environment variable LOGFLUSHMONITOR__SOURCES__SQLSERVER__INSTANCES__1__SESSIONNAME).",
                "Sources:SqlServer:Instances:1:MaxMemoryKb is 0. Use 1 to 2147483647, default 4096 (configuration key Sources:SqlServer:Instances:1:MaxMemoryKb, environment variable LOGFLUSHMONITOR__SOURCES__SQLSERVER__INSTANCES__1__MAXMEMORYKB).",
            ],
            SqlServerOptionsValidator.Validate(fleet));
    }

    [Fact]
    public void The_generated_schema_carries_defaults_choices_and_secrets_from_the_types()
    {
        var sqlServer = ConfigurationSchema.Root.Children!["Sources"].Children!["SqlServer"];
        var instance = sqlServer.Children!["Instances"].Element!;
        Assert.Equal("00:00:15", sqlServer.Children!["PollInterval"].DefaultText);
        Assert.Equal(["Auto", "Stream", "Histogram"], instance.Children!["Mode"].Choices);
        Assert.True(instance.Children!["ConnectionString"].Secret);
        Assert.False(instance.Children!["ConnectionStringFile"].Secret);
        Assert.True(ConfigurationSchema.Root.Children!["Exporters"].Children!["Otlp"].Children!["Headers"].Secret);
        Assert.Null(instance.Children!["PollInterval"].DefaultText);
        Assert.Equal("true", ConfigurationSchema.Root.Children!["Sources"].Children!["Replay"].Children!["RebaseToNow"].DefaultText);
    }

    /// <summary>The key table: each row's cells by its first cell's key (without backticks).</summary>
    private static Dictionary<string, string[]> ReadTable()
    {
        var rows = new Dictionary<string, string[]>(StringComparer.Ordinal);
        var inTable = false;
        foreach (var line in File.ReadLines(Deploy.DeployFiles.Path("docs", "configuration.md")))
        {
            if (line.StartsWith("| key | type | default | meaning |", StringComparison.Ordinal))
            {
                inTable = true;
                continue;
            }

            if (!inTable || line.StartsWith("| ---", StringComparison.Ordinal))
            {
                continue;
            }

            if (!line.StartsWith('|'))
            {
                break;
            }

            var cells = line.Trim('|').Split(" | ").Select(c => c.Trim()).ToArray();
            rows.Add(cells[0].Trim('`'), cells);
        }

        Assert.True(rows.Count > 40, $"the key table of docs/configuration.md has {rows.Count} rows");
        return rows;
    }

    private static string Plain(string text) => text.Replace("`", "", StringComparison.Ordinal);
}
