using LogFlushMonitor.SqlServer.Fleet;

namespace LogFlushMonitor.SqlServer.Tests.Fleet;

public class ValidatorTests
{
    private static SqlServerInstanceOptions Instance(string name) => new() { Name = name, ConnectionStringEnvironmentVariable = "X" };

    [Fact]
    public void Valid_options_have_no_problems() =>
        Assert.Empty(SqlServerOptionsValidator.Validate(new SqlServerSourceOptions { Shard = "1/2", Instances = [Instance("a"), Instance("b")] }));

    [Fact]
    public void Counter_entries_are_names_or_patterns_of_a_counter_name_and_bounded_in_number()
    {
        Assert.Empty(SqlServerOptionsValidator.Validate(new SqlServerSourceOptions { Counters = ["Log Pool *", "Transactions/sec", "*"] }));
        var problems = SqlServerOptionsValidator.Validate(new SqlServerSourceOptions { Counters = ["", "Log\nFlushes", new string('c', 129)] });
        Assert.Equal(3, problems.Count(p => p.StartsWith("Sources:SqlServer:Counters:", StringComparison.Ordinal)));
        Assert.Contains(problems, p => p.StartsWith("Sources:SqlServer:Counters:1 contains the control character U+000A", StringComparison.Ordinal));
        var many = SqlServerOptionsValidator.Validate(new SqlServerSourceOptions { Counters = [.. Enumerable.Range(0, 101).Select(i => $"c{i}")] });
        Assert.Contains(many, p => p.StartsWith("Sources:SqlServer:Counters has 101 entries: at most 100", StringComparison.Ordinal));
    }

    [Fact]
    public void Duplicate_names_are_rejected_ignoring_case()
    {
        var problems = SqlServerOptionsValidator.Validate(new SqlServerSourceOptions { Instances = [Instance("prod"), Instance("PROD")] });
        Assert.Contains(problems, p => p.StartsWith("Sources:SqlServer:Instances:1:Name 'PROD' is already used by Sources:SqlServer:Instances:0", StringComparison.Ordinal));
    }

    [Fact]
    public void Each_bad_setting_is_named()
    {
        var bad = new SqlServerInstanceOptions
        {
            Name = "",
            ConnectionString = $"Server=a;Password={TestSecrets.Password}",
            ConnectionStringFile = "/x",
            SessionName = "bad name;",
            PollInterval = TimeSpan.Zero,
            MaxMemoryKb = 0,
            IncludeDatabases = [new string('d', 129)],
            ExcludeDatabases = ["a\u0001b"],
        };
        var problems = SqlServerOptionsValidator.Validate(new SqlServerSourceOptions { Shard = "5/2", CommandTimeout = TimeSpan.Zero, Instances = [bad] });
        foreach (var setting in new[] { "Shard", "CommandTimeout", "Instances:0:Name", "Instances:0: set exactly one", "Instances:0:SessionName", "Instances:0:PollInterval", "Instances:0:MaxMemoryKb", "Instances:0:IncludeDatabases:0", "Instances:0:ExcludeDatabases:0" })
        {
            Assert.Contains(problems, p => p.StartsWith("Sources:SqlServer:" + setting, StringComparison.Ordinal));
        }

        Assert.DoesNotContain(problems, p => p.Contains(TestSecrets.Password, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("ConnectTimeout", "00:00:00")]
    [InlineData("ConnectTimeout", "00:11:00")]
    [InlineData("ReconnectDelay", "00:00:00")]
    [InlineData("ReconnectDelay", "00:05:00")] // above MaxReconnectDelay
    [InlineData("MaxReconnectDelay", "00:00:00")]
    [InlineData("FallbackErrorCount", "0")]
    [InlineData("FallbackWindow", "00:00:00")]
    [InlineData("HistogramSlots", "8")]
    [InlineData("MaxHistogramSessions", "-1")]
    [InlineData("MaxHistogramSessions", "65")]
    [InlineData("MaxStreamBufferBytes", "1024")]
    [InlineData("ShutdownTimeout", "00:00:30")]
    public void A_source_setting_out_of_its_range_is_named(string key, string value)
    {
        var options = new SqlServerSourceOptions { Instances = [Instance("a")] };
        var property = typeof(SqlServerSourceOptions).GetProperty(key)!;
        property.SetValue(options, property.PropertyType == typeof(int) ? int.Parse(value, System.Globalization.CultureInfo.InvariantCulture) : TimeSpan.Parse(value, System.Globalization.CultureInfo.InvariantCulture));

        var problems = SqlServerOptionsValidator.Validate(options);

        var problem = Assert.Single(problems, p => p.StartsWith($"Sources:SqlServer:{key} is ", StringComparison.Ordinal));
        Assert.Contains("default", problem, StringComparison.Ordinal);
    }

    [Fact]
    public void An_instance_takes_every_setting_from_the_options_and_its_own_poll_interval_wins()
    {
        var options = new SqlServerSourceOptions
        {
            PollInterval = TimeSpan.FromSeconds(7), CommandTimeout = TimeSpan.FromSeconds(8.2), ReconnectDelay = TimeSpan.FromSeconds(2),
            MaxReconnectDelay = TimeSpan.FromSeconds(40), MaxStreamBufferBytes = 2 << 20,
        };
        var settings = new SqlServerInstanceOptions { Name = "a", ConnectionString = "Server=x" };
        var sink = new RecordingSink();

        using var instance = new SqlServerInstance(settings, options, sink, sink, new Core.Health.SourceHealth());

        Assert.Equal(TimeSpan.FromSeconds(7), instance.PollInterval);
        Assert.Equal(9, instance.CommandTimeoutSeconds); // SqlClient takes whole seconds: never shorter than configured
        Assert.Equal((TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(40)), (instance.Retry.BaseDelay, instance.Retry.MaxDelay));
        Assert.Equal(2 << 20, instance.Stream.Reader.MaxBufferBytes);
        settings.PollInterval = TimeSpan.FromSeconds(11);
        Assert.Equal(TimeSpan.FromSeconds(11), instance.PollInterval); // the instance's own interval paces its polls and histogram reads
    }
}
