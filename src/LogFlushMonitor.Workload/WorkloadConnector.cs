using Microsoft.Data.SqlClient;
using Polly;
using Polly.Retry;

namespace LogFlushMonitor.Workload;

/// <summary>
/// Opens the workload's connections: to master for setup and to its own database for the sessions, under the
/// application name <see cref="ApplicationName"/>, trying <see cref="WorkloadOptions.ConnectAttempts"/> times
/// with Polly's capped exponential backoff with jitter before giving up with a message that says so.
/// </summary>
internal sealed class WorkloadConnector
{
    /// <summary>What the server sees as program_name: the monitor's own sessions are told apart from the load.</summary>
    public const string ApplicationName = "LogFlushMonitor workload";

    private readonly WorkloadOptions _options;
    private readonly ResiliencePipeline _retry;

    public WorkloadConnector(WorkloadOptions options)
    {
        _options = options;
        _retry = new ResiliencePipelineBuilder { TimeProvider = options.Time }
            .AddRetry(new RetryStrategyOptions
            {
                MaxRetryAttempts = Math.Max(0, options.ConnectAttempts - 1),
                BackoffType = DelayBackoffType.Exponential,
                UseJitter = true,
                Delay = options.RetryDelay,
                MaxDelay = options.MaxRetryDelay,
                ShouldHandle = args => ValueTask.FromResult(args.Outcome.Exception is TransientConnectFailure),
            })
            .Build();
        // The data source derives the two connection strings (the only way to the server: SqlServerDataSource).
        Server = new SqlConnectionStringBuilder(options.Server.ConnectionString).DataSource;
        MasterConnectionString = options.Server.For("master", ApplicationName);
        DatabaseConnectionString = options.Server.For(options.Database, ApplicationName);
    }

    /// <summary>The server's address as given (safe to print).</summary>
    public string Server { get; }

    /// <summary>The connection string for setup and DROP.</summary>
    public string MasterConnectionString { get; }

    /// <summary>The connection string of the sessions.</summary>
    public string DatabaseConnectionString { get; }

    /// <summary>Seconds of each statement's timeout.</summary>
    public int CommandTimeoutSeconds => Math.Max(1, (int)Math.Ceiling(_options.CommandTimeout.TotalSeconds));

    /// <summary>
    /// The retry of one transaction: a transient error (<see cref="WorkloadErrors.IsTransient"/>) is retried after Polly's
    /// capped exponential backoff with jitter, at most <see cref="WorkloadOptions.ConnectAttempts"/> attempts in all;
    /// <paramref name="failed"/> is told each failure first (it counts it and drops a broken connection).
    /// </summary>
    public ResiliencePipeline TransactionRetry(Func<Exception, ValueTask> failed) =>
        new ResiliencePipelineBuilder { TimeProvider = _options.Time }
            .AddRetry(new RetryStrategyOptions
            {
                MaxRetryAttempts = Math.Max(0, _options.ConnectAttempts - 1),
                BackoffType = DelayBackoffType.Exponential,
                UseJitter = true,
                Delay = _options.RetryDelay,
                MaxDelay = _options.MaxRetryDelay,
                ShouldHandle = args => ValueTask.FromResult(args.Outcome.Exception is { } e && !args.Context.CancellationToken.IsCancellationRequested && WorkloadErrors.IsTransient(e)),
                OnRetry = args => failed(args.Outcome.Exception!),
            })
            .Build();

    /// <summary>Opens a connection; throws <see cref="WorkloadException"/> once every attempt failed or at a failure retrying cannot fix.</summary>
    public async Task<SqlConnection> OpenAsync(string connectionString, CancellationToken cancellationToken)
    {
        var attempts = 0;
        try
        {
            return await _retry.ExecuteAsync(
                async ct =>
                {
                    attempts++;
                    var connection = new SqlConnection(connectionString);
                    try
                    {
                        await connection.OpenAsync(ct).ConfigureAwait(false);
                        return connection;
                    }
                    catch (Exception e) when (!ct.IsCancellationRequested && e is SqlException or InvalidOperationException or IOException or TimeoutException)
                    {
                        // A pool may hold more connections broken by the same fault.
                        SqlConnection.ClearPool(connection);
                        await connection.DisposeAsync().ConfigureAwait(false);
                        if (!WorkloadErrors.IsTransient(e))
                        {
                            throw new WorkloadException($"cannot connect to {Server}: {WorkloadErrors.Describe(e)}");
                        }

                        throw new TransientConnectFailure(e);
                    }
                    catch
                    {
                        await connection.DisposeAsync().ConfigureAwait(false);
                        throw;
                    }
                },
                cancellationToken).ConfigureAwait(false);
        }
        catch (TransientConnectFailure f)
        {
            throw new WorkloadException(
                $"server {Server} unreachable after {attempts} attempt(s): {WorkloadErrors.Describe(f.InnerException!)}. Is it running, and are the address and port right?");
        }
    }

    /// <summary>A failure worth another attempt (the retry policy's signal; never leaves this class).</summary>
    private sealed class TransientConnectFailure(Exception inner) : Exception(inner.Message, inner);

}
