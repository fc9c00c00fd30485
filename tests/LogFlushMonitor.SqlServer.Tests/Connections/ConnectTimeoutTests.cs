using System.Diagnostics;
using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.SqlServer.Connections;

namespace LogFlushMonitor.SqlServer.Tests.Connections;

/// <summary>
/// Issue 30 item 6: a Connect Timeout written into the connection string was silently replaced by
/// Sources:SqlServer:ConnectTimeout (15 s), so <c>check</c> of an unreachable server took 15 s. It is kept now, and said:
/// the data source's note, check's target line and its timeout problem name it.
/// </summary>
public sealed class ConnectTimeoutTests
{
    private static SqlServerInstanceOptions Instance(string connectionString) => new() { Name = "prod1", ConnectionString = connectionString };

    [Fact]
    public void A_connect_timeout_in_the_string_is_kept_and_said()
    {
        var fleet = new SqlServerSourceOptions { ConnectTimeout = TimeSpan.FromSeconds(15) };

        var source = SqlServerDataSource.Create(Instance($"Server=sql1;User ID=x;Password={TestSecrets.Password};Connect Timeout=2"), fleet);

        Assert.Equal(TimeSpan.FromSeconds(2), source.ConnectTimeout);
        Assert.Equal("the connection string sets Connect Timeout=2, which is used for prod1 instead of Sources:SqlServer:ConnectTimeout (00:00:15)", source.ConnectTimeoutNote);
        Assert.EndsWith(", connect timeout 2 s (the connection string's)", source.Target, StringComparison.Ordinal);
        Assert.DoesNotContain(TestSecrets.Password, source.Target, StringComparison.Ordinal);
    }

    [Fact]
    public void Without_one_the_fleet_setting_applies_and_nothing_is_said()
    {
        var source = SqlServerDataSource.Create(Instance("Server=sql1;User ID=x"), new SqlServerSourceOptions { ConnectTimeout = TimeSpan.FromSeconds(7) });

        Assert.Equal(TimeSpan.FromSeconds(7), source.ConnectTimeout);
        Assert.Null(source.ConnectTimeoutNote);
        Assert.DoesNotContain("connect timeout", source.Target, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Check_of_an_unreachable_server_ends_within_the_strings_timeout_not_the_fleets()
    {
        // A port nothing listens on: SqlClient retries the refused connection until its connect timeout.
        var port = TestPorts.Free();
        var instance = Instance($"Server=tcp:127.0.0.1,{port};User ID=x;Password={TestSecrets.Password};Encrypt=False;Connect Timeout=2");
        var clock = Stopwatch.StartNew();

        var result = await InstanceChecker.CheckAsync(instance, new SqlServerSourceOptions { ConnectTimeout = TimeSpan.FromSeconds(15) }, null, CancellationToken.None);

        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(12), $"{clock.Elapsed} (the fleet's 15 s would be used)");
        Assert.Contains("connect timeout 2 s (the connection string's)", result.Target, StringComparison.Ordinal);
        Assert.NotEmpty(result.Problems);
    }
}
