using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Samples;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Tests;

/// <summary>A <see cref="SqlServerInstance"/> for tests: fast delays unless a test gives its own fleet settings.</summary>
internal static class TestInstance
{
    /// <summary>Reconnects in tens of milliseconds; histogram polls every 30 ms.</summary>
    public static SqlServerSourceOptions Fast() => new()
    {
        ReconnectDelay = TimeSpan.FromMilliseconds(20),
        MaxReconnectDelay = TimeSpan.FromMilliseconds(200),
        PollInterval = TimeSpan.FromMilliseconds(30),
    };

    /// <summary>
    /// The instance of <paramref name="options"/> on <paramref name="connectionString"/> (set as the instance's
    /// connection string unless the options name one already).
    /// </summary>
    public static SqlServerInstance Create(SqlServerInstanceOptions options, string connectionString, IEventSink events, IPollSink polls, SourceHealth health,
        SqlServerSourceOptions? fleet = null, TimeProvider? time = null, ILogger? logger = null, Func<double>? random = null)
    {
        if (options.ConnectionString is null && options.ConnectionStringEnvironmentVariable is null && options.ConnectionStringFile is null)
        {
            options.ConnectionString = connectionString;
        }

        return new SqlServerInstance(options, fleet ?? Fast(), events, polls, health, logger, time, random: random);
    }
}
