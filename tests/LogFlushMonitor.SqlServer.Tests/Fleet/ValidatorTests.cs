using LogFlushMonitor.SqlServer.Fleet;

namespace LogFlushMonitor.SqlServer.Tests.Fleet;

public class ValidatorTests
{
    private static SqlServerInstanceOptions Instance(string name) => new() { Name = name, ConnectionStringEnvironmentVariable = "X" };

    [Fact]
    public void Valid_options_have_no_problems() =>
        Assert.Empty(SqlServerOptionsValidator.Validate(new SqlServerSourceOptions { Shard = "1/2", Instances = [Instance("a"), Instance("b")] }));

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
            ConnectionString = "Server=a;Password=test-only-secret",
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

        Assert.DoesNotContain(problems, p => p.Contains("test-only-secret", StringComparison.Ordinal));
    }
}
