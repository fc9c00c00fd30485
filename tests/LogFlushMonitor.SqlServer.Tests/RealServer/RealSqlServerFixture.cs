using System.Diagnostics;
using Dapper;
using DotNet.Testcontainers.Builders;
using Microsoft.Data.SqlClient;
using Testcontainers.MsSql;

namespace LogFlushMonitor.SqlServer.Tests.RealServer;

/// <summary>
/// The SQL Server the real-server suite runs against, found once per test run: the one
/// <c>LOGFLUSHMONITOR_TEST_SQLSERVER</c> names; otherwise SQL Server 2022 in a container started here
/// (Testcontainers), where Docker is reachable; otherwise none, and every test of the collection skips with
/// <see cref="SkipReason"/>. One instance for the whole collection: the container starts once, and a missing
/// Docker daemon costs its ~2 s once, not per test.
/// </summary>
public sealed class RealSqlServerFixture : IAsyncLifetime
{
    /// <summary>A connection string to a server of your own; wins over Docker.</summary>
    public const string Variable = "LOGFLUSHMONITOR_TEST_SQLSERVER";

    /// <summary>Set to 1 when the server named by <see cref="Variable"/> comes back by itself after SHUTDOWN (and the login may shut it down).</summary>
    public const string RestartableVariable = "LOGFLUSHMONITOR_TEST_SQLSERVER_RESTARTABLE";

    /// <summary>The container image to start instead of the default (e.g. <c>mcr.microsoft.com/mssql/server:2019-latest</c>).</summary>
    public const string ImageVariable = "LOGFLUSHMONITOR_TEST_SQLSERVER_IMAGE";

    /// <summary>
    /// Set to 1 where a server must be there (the CI workflow that runs this suite where Docker runs): a missing server
    /// then fails the run instead of skipping every test, so the suite cannot pass by having been skipped.
    /// </summary>
    public const string RequiredVariable = "LOGFLUSHMONITOR_TEST_SQLSERVER_REQUIRED";

    /// <summary>The default image of the container (SQL Server 2022, the newest the monitor's grants are written for).</summary>
    public const string DefaultImage = "mcr.microsoft.com/mssql/server:2022-latest";

    /// <summary>The image this run starts.</summary>
    public static string Image => Environment.GetEnvironmentVariable(ImageVariable) is { Length: > 0 } image ? image : DefaultImage;

    private MsSqlContainer? _container;

    /// <summary>Where the server came from, for test output: the variable or the container.</summary>
    public string Source { get; private set; } = "none";

    /// <summary>The connection string (a secret: never print it), or null when there is no server.</summary>
    public string? ConnectionString { get; private set; }

    /// <summary>Why there is no server, or null when there is one.</summary>
    public string? SkipReason { get; private set; }

    /// <summary>Why the server cannot be restarted by a test, or null when <see cref="RestartAsync"/> works.</summary>
    public string? RestartSkipReason { get; private set; }

    /// <summary>Skips the calling test, with the reason, when there is no server; else its connection string.</summary>
    public string Require()
    {
        Skip.If(SkipReason is not null, SkipReason);
        return ConnectionString!;
    }

    public async Task InitializeAsync()
    {
        var external = Environment.GetEnvironmentVariable(Variable);
        if (!string.IsNullOrWhiteSpace(external))
        {
            (ConnectionString, Source) = (external, Variable);
            RestartSkipReason = Environment.GetEnvironmentVariable(RestartableVariable) == "1" ? null
                : $"{RestartableVariable} is not 1: restarting the server named by {Variable} needs one that comes back by itself after SHUTDOWN WITH NOWAIT (e.g. a compose service with a restart policy) and a login with SHUTDOWN permission.";
            return;
        }

        var clock = Stopwatch.StartNew();
        try
        {
            // A fixed host port, so the server is where the clients expect it after RestartAsync.
            _container = new MsSqlBuilder(Image).WithPortBinding(TestPorts.Free(), MsSqlBuilder.MsSqlPort).Build();
            await _container.StartAsync();
        }
        catch (DockerUnavailableException e)
        {
            SkipReason = $"no SQL Server for the real-server tests: {Variable} is not set and Docker is not reachable ({FirstLine(e.Message)}; gave up after {clock.Elapsed.TotalSeconds:0.0} s). Run them where Docker runs, or set {Variable} to a connection string.";
            await DisposeContainerAsync();
            if (Environment.GetEnvironmentVariable(RequiredVariable) == "1")
            {
                throw new InvalidOperationException($"{RequiredVariable}=1 but there is no server: {SkipReason}", e);
            }

            return;
        }

        (ConnectionString, Source) = (_container.GetConnectionString(), $"container {Image}");
    }

    /// <summary>
    /// Restarts the server and returns once it accepts logins again: the container through Docker (stop, start), or
    /// the external server with SHUTDOWN WITH NOWAIT when <see cref="RestartableVariable"/> says it comes back.
    /// </summary>
    public async Task RestartAsync()
    {
        Skip.If(RestartSkipReason is not null, RestartSkipReason);
        if (_container is not null)
        {
            await _container.StopAsync();
            await _container.StartAsync(); // waits until the server is ready again
            return;
        }

        await using var admin = new SqlConnection(ConnectionString);
        await admin.OpenAsync();
        try
        {
            await admin.ExecuteAsync("SHUTDOWN WITH NOWAIT;");
        }
        catch (SqlException)
        {
            // The server closes this connection as it goes down.
        }
    }

    public Task DisposeAsync() => DisposeContainerAsync();

    private async Task DisposeContainerAsync()
    {
        if (_container is not null)
        {
            await _container.DisposeAsync();
            _container = null;
        }
    }

    private static string FirstLine(string text) => text.Split('\n', 2)[0].Trim();
}

/// <summary>Every real-server test class joins this collection, so they share one server (and one container).</summary>
[CollectionDefinition(Name)]
public sealed class RealSqlServerCollection : ICollectionFixture<RealSqlServerFixture>
{
    public const string Name = "real SQL Server";

    /// <summary>The trait every real-server test class carries: <c>dotnet test --filter Category=RealServer</c> runs the suite alone.</summary>
    public const string Category = "RealServer";
}
