using LogFlushMonitor.SqlServer.Resilience;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Workload;

/// <summary>
/// Opens the workload's connections: to master for setup and to its own database for the sessions, under the
/// application name <see cref="ApplicationName"/>, trying <see cref="WorkloadOptions.ConnectAttempts"/> times
/// with capped, jittered backoff before giving up with a message that says so.
/// </summary>
internal sealed class WorkloadConnector
{
    /// <summary>What the server sees as program_name: the monitor's own sessions are told apart from the load.</summary>
    public const string ApplicationName = "LogFlushMonitor workload";

    private readonly WorkloadOptions _options;
    private readonly ReconnectBackoff _backoff;

    public WorkloadConnector(WorkloadOptions options)
    {
        _options = options;
        _backoff = new ReconnectBackoff(options.RetryDelay, options.MaxRetryDelay);
        var builder = Builder(options.ConnectionString);
        Server = builder.DataSource;
        builder.InitialCatalog = "master";
        MasterConnectionString = builder.ConnectionString;
        builder.InitialCatalog = options.Database;
        DatabaseConnectionString = builder.ConnectionString;
    }

    /// <summary>The server's address as given (safe to print).</summary>
    public string Server { get; }

    /// <summary>The connection string for setup and DROP.</summary>
    public string MasterConnectionString { get; }

    /// <summary>The connection string of the sessions.</summary>
    public string DatabaseConnectionString { get; }

    /// <summary>Seconds of each statement's timeout.</summary>
    public int CommandTimeoutSeconds => Math.Max(1, (int)Math.Ceiling(_options.CommandTimeout.TotalSeconds));

    /// <summary>The wait before retry <paramref name="attempt"/> (0-based).</summary>
    public TimeSpan Delay(int attempt) => _backoff.Delay(attempt);

    /// <summary>Opens a connection; throws <see cref="WorkloadException"/> once every attempt failed or at a failure retrying cannot fix.</summary>
    public async Task<SqlConnection> OpenAsync(string connectionString, CancellationToken cancellationToken)
    {
        for (var attempt = 0; ; attempt++)
        {
            var connection = new SqlConnection(connectionString);
            try
            {
                await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
                return connection;
            }
            catch (Exception e) when (!cancellationToken.IsCancellationRequested && e is SqlException or InvalidOperationException or IOException or TimeoutException)
            {
                // A pool may hold more connections broken by the same fault.
                SqlConnection.ClearPool(connection);
                await connection.DisposeAsync().ConfigureAwait(false);
                if (!WorkloadErrors.IsTransient(e))
                {
                    throw new WorkloadException($"cannot connect to {Server}: {WorkloadErrors.Describe(e)}");
                }

                if (attempt + 1 >= _options.ConnectAttempts)
                {
                    throw new WorkloadException(
                        $"server {Server} unreachable after {attempt + 1} attempt(s): {WorkloadErrors.Describe(e)}. Is it running, and are the address and port right?");
                }

                await Task.Delay(Delay(attempt), _options.Time, cancellationToken).ConfigureAwait(false);
            }
            catch
            {
                await connection.DisposeAsync().ConfigureAwait(false);
                throw;
            }
        }
    }

    private static SqlConnectionStringBuilder Builder(string connectionString)
    {
        try
        {
            return new SqlConnectionStringBuilder(connectionString) { ApplicationName = ApplicationName };
        }
        catch (ArgumentException)
        {
            // The exception's message may quote the string: do not pass it on.
            throw new WorkloadException("the connection string is not valid (check its keywords).", isUsage: true);
        }
    }
}
