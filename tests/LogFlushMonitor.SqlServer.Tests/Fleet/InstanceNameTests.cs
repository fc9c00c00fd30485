using LogFlushMonitor.SqlServer.Fleet;

namespace LogFlushMonitor.SqlServer.Tests.Fleet;

/// <summary>Two instance names that look the same are two series that look the same: refused (issue 20 item 9).</summary>
public class InstanceNameTests
{
    private static SqlServerInstanceOptions Instance(string name) => new() { Name = name, ConnectionStringEnvironmentVariable = "X" };

    [Theory]
    [InlineData("prod ", "begins or ends with white space")]
    [InlineData(" prod", "begins or ends with white space")]
    [InlineData("prod\u00a0", "begins or ends with white space")]
    [InlineData("pro\u200bd", "holds the invisible character U+200B")]
    [InlineData("prod\ufeff", "holds the invisible character U+FEFF")]
    [InlineData("prod\u2060", "holds the invisible character U+2060")]
    [InlineData("pr\u0000od", "holds the invisible character U+0000")]
    [InlineData("pro\u2028d", "holds the invisible character U+2028")]
    public void A_name_that_differs_from_another_only_invisibly_is_refused(string lookalike, string problem)
    {
        var problems = SqlServerOptionsValidator.Validate(new SqlServerSourceOptions { Instances = [Instance("prod"), Instance(lookalike)] });
        var found = Assert.Single(problems);
        Assert.StartsWith($"Sources:SqlServer:Instances:1:Name {problem}", found, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("prod-sql-01")]
    [InlineData(@"HOST\INSTANCE")]
    [InlineData("sql server 1")]
    [InlineData("prod.example.com,1433")]
    [InlineData("Produktion-Zürich")]
    public void Ordinary_names_pass(string name) =>
        Assert.Empty(SqlServerOptionsValidator.Validate(new SqlServerSourceOptions { Instances = [Instance(name)] }));
}
