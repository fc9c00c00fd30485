using System.Reflection;
using LogFlushMonitor.Configuration;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.SqlServer;
using Microsoft.Extensions.Configuration;

namespace LogFlushMonitor.Tests.Hosting;

public class ConfigurationCheckTests
{
    private static ConfigurationCheck.Result Check(params (string Key, string? Value)[] settings) =>
        ConfigurationCheck.Inspect(new ConfigurationBuilder()
            .AddInMemoryCollection(settings.Select(s => new KeyValuePair<string, string?>(s.Key, s.Value)))
            .Build());

    [Theory]
    [InlineData("Sources:Simulate:Speed", "fast", "a number")]
    [InlineData("Sources:Simulate:Duration", "5minutes", "a duration hh:mm:ss")]
    [InlineData("Sources:Simulate:Seed", "1.5", "a whole number")]
    [InlineData("Sources:Replay:RebaseToNow", "yes", "true or false")]
    [InlineData("Exporters:Otlp:Interval", "15s", "a duration hh:mm:ss")]
    [InlineData("Log:RetainedFiles", "seven", "a whole number")]
    [InlineData("Sources:SqlServer:PollInterval", "soon", "a duration hh:mm:ss")]
    [InlineData("Sources:SqlServer:Instances:0:Mode", "Turbo", "one of Auto, Stream, Histogram")]
    [InlineData("Sources:SqlServer:Instances:0:Mode", "7", "one of Auto, Stream, Histogram")]
    [InlineData("Sources:SqlServer:Instances:0:PollInterval", "soon", "a duration hh:mm:ss")]
    [InlineData("Sources:SqlServer:Instances:0:Azure", "maybe", "true or false")]
    [InlineData("Sources:SqlServer:Instances:1:MaxMemoryKb", "4MB", "a whole number")]
    public void A_value_that_does_not_convert_is_an_error_naming_the_key_and_the_form(string key, string value, string expected)
    {
        var result = Check((key, value), ("Sources:SqlServer:Instances:0:Name", "prod1"));
        var error = Assert.Single(result.Errors);
        Assert.Contains($"{key} is '{value}', which is not {expected}", error, StringComparison.Ordinal);
        Assert.Contains("LOGFLUSHMONITOR__" + key.Replace(":", "__", StringComparison.Ordinal).ToUpperInvariant(), error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Sources:Simulate:Speed", "2.5")]
    [InlineData("Sources:Simulate:Duration", "00:05:00")]
    [InlineData("Sources:Simulate:Duration", "")]
    [InlineData("Sources:SqlServer:Instances:0:Mode", "histogram")]
    [InlineData("Sources:SqlServer:Instances:0:Azure", "True")]
    [InlineData("Sources:SqlServer:Instances:0:IncludeDatabases:0", "shop")]
    [InlineData("Exporters:Otlp:Timeout", "1.00:00:00")]
    public void A_well_formed_value_passes_and_binds(string key, string value)
    {
        var settings = new Dictionary<string, string?> { [key] = value };
        Assert.Empty(Check((key, value)).Errors);
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        Assert.NotNull(ConfigurationSchema.Bind(configuration)); // the service's (generated) binder agrees: no exception
    }

    [Fact]
    public void A_mistyped_instance_value_no_longer_makes_the_instance_vanish()
    {
        // The reflection binder skipped a list element it could not convert: check then saw "Instances is empty".
        var result = Check(("Sources:SqlServer:Instances:0:Name", "prod1"), ("Sources:SqlServer:Instances:0:Mode", "Turbo"));
        Assert.Contains(result.Errors, e => e.StartsWith("Sources:SqlServer:Instances:0:Mode is 'Turbo'", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("Sources:Simulate:Sped", "Did you mean Sources:Simulate:Speed?")]
    [InlineData("Sources:SqlServer:Instances:0:Azur", "Did you mean Sources:SqlServer:Instances:0:Azure?")]
    [InlineData("Exporters:Otlp:Endpont", "Did you mean Exporters:Otlp:Endpoint?")]
    [InlineData("Source:Simulate:Scenario", "Did you mean Sources?")]
    [InlineData("Log:Colour", "Known keys here: Level, Format, File, RetainedFiles, SummaryInterval.")]
    [InlineData("Sources:SqlServer:Instances:0:ConnectionStringEnvVariable", "Did you mean Sources:SqlServer:Instances:0:ConnectionStringEnvironmentVariable?")]
    [InlineData("Sources:SqlServer:Instances:0:ConnStringFile", "Did you mean Sources:SqlServer:Instances:0:ConnectionStringFile?")]
    public void An_unknown_key_in_our_sections_is_a_warning_naming_the_nearest_known_key(string key, string hint)
    {
        var result = Check((key, "1"));
        Assert.Empty(result.Errors);
        var warning = Assert.Single(result.Warnings);
        Assert.Contains("Unknown configuration key", warning, StringComparison.Ordinal);
        Assert.Contains(hint, warning, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Sources:SqlServer:Instances:ConnectionString")]
    [InlineData("SOURCES:SQLSERVER:INSTANCES:CONNECTIONSTRING")]
    [InlineData("Sources:SqlServer:Instances:prod:ConnectionString")]
    public void An_instance_key_without_its_element_number_is_an_error_naming_the_numbered_form_and_never_the_value(string key)
    {
        var result = Check((key, $"Server=x;Password={TestSecrets.Password}"));
        var error = Assert.Single(result.Errors);
        Assert.StartsWith("Sources:SqlServer:Instances is a list", error, StringComparison.Ordinal);
        Assert.Contains("Sources:SqlServer:Instances:0:", error, StringComparison.Ordinal);
        Assert.Contains("LOGFLUSHMONITOR__SOURCES__SQLSERVER__INSTANCES__0__", error, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, string.Join("\n", result.Errors.Concat(result.Warnings)), StringComparison.Ordinal);
    }

    [Fact]
    public void A_single_value_where_a_list_belongs_is_an_error_naming_the_list_form()
    {
        // A scalar IncludeDatabases was dropped by the binder: the instance watched every database.
        var result = Check(("Sources:SqlServer:Instances:0:Name", "prod1"), ("Sources:SqlServer:Instances:0:IncludeDatabases", "sales"));
        var error = Assert.Single(result.Errors);
        Assert.Contains("Sources:SqlServer:Instances:0:IncludeDatabases is a list, not a single value", error, StringComparison.Ordinal);
        Assert.Contains("Sources:SqlServer:Instances:0:IncludeDatabases:0", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Sources:SqlServer")]
    [InlineData("Exporters:Otlp")]
    [InlineData("Sources:SqlServer:Instances:0")]
    public void A_value_where_a_section_belongs_is_an_error_that_does_not_quote_it(string key)
    {
        var result = Check((key, $"Server=x;Password={TestSecrets.Password}"));
        var error = Assert.Single(result.Errors);
        Assert.StartsWith($"{key} is a section, not a value", error, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, error, StringComparison.Ordinal);
    }

    [Fact]
    public void Only_known_values_that_hold_no_secret_are_ever_quoted()
    {
        var secret = $"Password={TestSecrets.Password}";
        Assert.DoesNotContain(TestSecrets.Password, ConfigurationCheck.Quote(secret, ConfigurationSchema.Root.Children!["Exporters"].Children!["Otlp"].Children!["Headers"]), StringComparison.Ordinal);
        var instance = ConfigurationSchema.Root.Children!["Sources"].Children!["SqlServer"].Children!["Instances"].Element!;
        Assert.DoesNotContain(TestSecrets.Password, ConfigurationCheck.Quote(secret, instance.Children!["ConnectionString"]), StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, ConfigurationCheck.Quote(secret, instance), StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, ConfigurationCheck.Quote(secret, null), StringComparison.Ordinal);
        Assert.Equal("'fast\\n'", ConfigurationCheck.Quote("fast\n", instance.Children!["Name"]));
    }

    [Fact]
    public void Keys_of_other_components_and_known_keys_raise_no_warning()
    {
        var result = Check(("Serilog:MinimumLevel", "Debug"), ("AllowedHosts", "*"), ("Sources:Simulate:Scenario", "mixed"), ("Http:Urls", "http://127.0.0.1:1"));
        Assert.Empty(result.Errors);
        Assert.Empty(result.Warnings);
    }

    [SkippableFact]
    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    public void A_connection_string_file_others_can_read_gets_a_warning()
    {
        Skip.If(OperatingSystem.IsWindows(), "Unix file modes only");
        var file = Path.GetTempFileName();
        try
        {
            File.WriteAllText(file, $"Server=x;Password={TestSecrets.Password}");
            File.SetUnixFileMode(file, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
            var open = Check(("Sources:SqlServer:Instances:0:ConnectionStringFile", file));
            var warning = Assert.Single(open.Warnings);
            Assert.Contains("Sources:SqlServer:Instances:0:ConnectionStringFile", warning, StringComparison.Ordinal);
            Assert.Contains("mode 0644", warning, StringComparison.Ordinal);
            Assert.DoesNotContain(TestSecrets.Password, warning, StringComparison.Ordinal);

            File.SetUnixFileMode(file, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead);
            Assert.Empty(Check(("Sources:SqlServer:Instances:0:ConnectionStringFile", file)).Warnings);

            // A Kubernetes secret mount: a symbolic link (mode 0777) to the file, which is what counts.
            File.CreateSymbolicLink(file + ".link", file);
            Assert.Empty(Check(("Sources:SqlServer:Instances:0:ConnectionStringFile", file + ".link")).Warnings);
        }
        finally
        {
            File.Delete(file + ".link");
            File.Delete(file);
        }
    }

    [Fact]
    public void The_schema_lists_exactly_the_options_types_properties_with_their_forms()
    {
        var expected = new SortedSet<string>(StringComparer.Ordinal);
        Describe(typeof(MonitorOptions), "", expected);
        var actual = new SortedSet<string>(StringComparer.Ordinal);
        Describe(ConfigurationSchema.Root, "", actual);
        Assert.True(expected.SetEquals(actual),
            "ConfigurationSchema and the options types differ. Missing from the schema: " + string.Join("; ", expected.Except(actual))
            + ". In the schema but not in the types: " + string.Join("; ", actual.Except(expected)));
    }

    [Fact]
    public void Every_key_the_schema_knows_binds_into_the_options()
    {
        // One non-default, well-formed value per key: after binding, every one must have landed (nothing ignored).
        var keys = new SortedSet<string>(StringComparer.Ordinal);
        Describe(ConfigurationSchema.Root, "", keys);
        var settings = keys.Select(k => k.Split(' ')).ToDictionary(
            p => p[0].Replace("*", "0", StringComparison.Ordinal),
            p => (string?)(p[1] switch
            {
                "Boolean" => "true",
                "Integer" => "12345",
                "Number" => "12.5",
                "Duration" => "00:12:34",
                "Choice(Auto,Stream,Histogram)" => "Histogram",
                _ => "text-value",
            }));
        var options = ConfigurationSchema.Bind(new ConfigurationBuilder().AddInMemoryCollection(settings).Build());
        var flat = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        Assert.Empty(ConfigurationCheck.Inspect(flat).Errors);
        Assert.Empty(ConfigurationCheck.Inspect(flat).Warnings);
        Assert.Equal(12.5, options.Sources.Simulate.Speed);
        Assert.Equal(TimeSpan.Parse("00:12:34", System.Globalization.CultureInfo.InvariantCulture), options.Sources.SqlServer.Instances[0].PollInterval);
        Assert.Equal(CollectionMode.Histogram, options.Sources.SqlServer.Instances[0].Mode);
        Assert.Equal("text-value", options.Sources.SqlServer.Instances[0].IncludeDatabases[0]);
        Assert.Equal(12345, options.Pipeline.ChannelCapacity);
    }

    [Theory]
    [InlineData("runn", "run")]
    [InlineData("chek", "check")]
    [InlineData("analyse", "analyze")]
    [InlineData("Sped", "Speed")]
    public void The_nearest_name_is_suggested_for_a_typo(string typo, string expected)
    {
        string[] names = ["run", "simulate", "analyze", "check", "setup-sql", "workload", "health", "report", "Scenario", "Speed", "Seed", "Duration"];
        Assert.Equal(expected, ConfigurationSuggestions.Nearest(typo, names));
    }

    [Fact]
    public void A_word_far_from_every_name_gets_no_suggestion()
    {
        Assert.Null(ConfigurationSuggestions.Nearest("banana", ["run", "simulate", "analyze", "check"]));
    }

    [Fact]
    public void Empty_http_urls_is_an_error()
    {
        var options = new MonitorOptions { Sources = { Simulate = { Scenario = "mixed" } }, Http = { Urls = " ; " } };
        var result = new MonitorOptionsValidator(SimulationScenarios.Names).Validate(null, options);
        Assert.True(result.Failed);
        Assert.Contains("Http:Urls is empty", result.FailureMessage, StringComparison.Ordinal);
    }

    [Fact]
    public void A_log_file_that_cannot_be_written_is_an_error()
    {
        // A regular file where the directory should be: fails for every user, root included.
        var notADirectory = Path.GetTempFileName();
        try
        {
            var options = new MonitorOptions { Sources = { Simulate = { Scenario = "mixed" } }, Log = { File = Path.Combine(notADirectory, "monitor.log") } };
            var result = new MonitorOptionsValidator(SimulationScenarios.Names).Validate(null, options);
            Assert.True(result.Failed);
            Assert.Contains("Log:File names", result.FailureMessage, StringComparison.Ordinal);
            Assert.Contains("cannot be written", result.FailureMessage, StringComparison.Ordinal);

            var fine = new MonitorOptions { Sources = { Simulate = { Scenario = "mixed" } }, Log = { File = Path.Combine(Path.GetTempPath(), $"lfm-{Guid.NewGuid():N}", "monitor.log") } };
            Assert.True(new MonitorOptionsValidator(SimulationScenarios.Names).Validate(null, fine).Succeeded);
            Assert.Empty(Directory.GetFiles(Path.GetDirectoryName(fine.Log.File)!)); // the probe is gone
        }
        finally
        {
            File.Delete(notADirectory);
        }
    }

    /// <summary>"path form" lines for every value under <paramref name="type"/>'s public settable properties.</summary>
    private static void Describe(Type type, string prefix, ISet<string> into)
    {
        foreach (var p in type.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.CanWrite))
        {
            Describe(p.PropertyType, prefix + p.Name, into, type);
        }
    }

    private static void Describe(Type t, string path, ISet<string> into, Type owner)
    {
        t = Nullable.GetUnderlyingType(t) ?? t;
        if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(List<>))
        {
            Describe(t.GetGenericArguments()[0], path + ":*", into, owner);
            return;
        }

        var form = t == typeof(string) ? "Text"
            : t == typeof(bool) ? "Boolean"
            : t == typeof(int) ? "Integer"
            : t == typeof(double) ? "Number"
            : t == typeof(TimeSpan) ? "Duration"
            : t.IsEnum ? $"Choice({string.Join(',', Enum.GetNames(t))})"
            : null;
        if (form is not null)
        {
            into.Add($"{path} {form}");
        }
        else if (t.IsClass)
        {
            Describe(t, path + ":", into);
        }
        else
        {
            into.Add($"{path} unsupported {t.Name} in {owner.Name}: teach ConfigurationSchema (and this test) its form");
        }
    }

    private static void Describe(SettingNode node, string path, ISet<string> into)
    {
        if (node.Element is { } element)
        {
            Describe(element, path + ":*", into);
        }
        else if (node.Children is { } children)
        {
            foreach (var (name, child) in children)
            {
                Describe(child, path.Length == 0 ? name : path + ":" + name, into);
            }
        }
        else
        {
            into.Add($"{path} {(node.Form == ValueForm.Choice ? $"Choice({string.Join(',', node.Choices)})" : node.Form.ToString())}");
        }
    }
}
