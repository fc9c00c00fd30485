using System.Data;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.Workload;

/// <summary>
/// One connection running one scenario's transactions in a loop until <c>stop</c> (the duration ended or the
/// rows ran out: the open transaction is committed) or <c>abort</c> (Ctrl+C or another session failed: the open
/// transaction is rolled back). A transient error is counted, the transaction rolled back and retried (Polly's
/// backoff, <see cref="WorkloadConnector.TransactionRetry"/>), on a new connection if the old one broke; a run of
/// failures longer than the connect attempts ends the run.
/// </summary>
internal sealed class WorkloadSession(
    WorkloadScenario scenario, int rowsPerTransaction, int session, WorkloadConnector connector, WorkloadCounters counters, WorkloadOptions options)
{
    /// <summary>Rows per statement of big-transaction: about five 60 KB log blocks, and a cancellation point.</summary>
    internal const int BigTransactionChunk = 1000;

    private const string Payload = "LogFlushMonitor workload row";

    private SqlConnection? _connection;

    public async Task RunAsync(CancellationToken stop, CancellationToken abort)
    {
        var failures = 0;
        var retry = connector.TransactionRetry(e =>
        {
            failures++;
            counters.Error();
            // A deadlock or lock timeout leaves the connection usable; anything else may have broken it.
            return _connection is null || _connection.State != ConnectionState.Open || e is not SqlException { Number: 1205 or 1222 }
                ? new ValueTask(DropConnectionAsync())
                : ValueTask.CompletedTask;
        });
        try
        {
            var more = true;
            while (more && !stop.IsCancellationRequested)
            {
                try
                {
                    more = await retry.ExecuteAsync(
                        async ct =>
                        {
                            if (_connection is null)
                            {
                                _connection = await connector.OpenAsync(connector.DatabaseConnectionString, ct).ConfigureAwait(false);
                                if (failures > 0)
                                {
                                    counters.Reconnected();
                                }
                            }

                            return await TransactionAsync(_connection, stop, ct).ConfigureAwait(false);
                        },
                        abort).ConfigureAwait(false);
                    failures = 0; // "in a row": a transaction that went through ends the run of failures
                }
                catch (Exception e) when (!abort.IsCancellationRequested && WorkloadErrors.IsTransient(e))
                {
                    throw new WorkloadException($"session {session}: {failures} transient errors in a row, the last: {WorkloadErrors.Describe(e)}");
                }
                catch (Exception e) when (!abort.IsCancellationRequested && e is SqlException or InvalidOperationException)
                {
                    throw new WorkloadException($"session {session}: {WorkloadErrors.Describe(e)}");
                }
            }
        }
        catch (Exception) when (abort.IsCancellationRequested)
        {
            // Ctrl+C or another session's failure: whatever was in flight is rolled back below.
        }
        finally
        {
            await DropConnectionAsync().ConfigureAwait(false);
        }
    }

    /// <summary>One transaction of the scenario; false when no rows are left to take.</summary>
    private async Task<bool> TransactionAsync(SqlConnection connection, CancellationToken stop, CancellationToken abort)
    {
        if (rowsPerTransaction == 1)
        {
            // Autocommit: each INSERT is its own implicit transaction.
            if (counters.Reserve(1) == 0)
            {
                return false;
            }

            var began = options.Time.GetTimestamp();
            try
            {
                await ExecuteAsync(connection, null, InsertStatement, rows: null, abort).ConfigureAwait(false);
            }
            catch
            {
                counters.Release(1);
                throw;
            }

            // The implicit transaction's round trip is its commit: the INSERT returns once its log record is hardened.
            counters.Latency.Add(options.Time.GetElapsedTime(began));

            await CommittedAsync(connection, 1, abort).ConfigureAwait(false);
            return true;
        }

        var wanted = rowsPerTransaction == 0 ? int.MaxValue : rowsPerTransaction;
        var big = scenario == WorkloadScenario.BigTransaction;
        // Rows are taken before BEGIN, so a scenario whose rows ran out sends no empty transaction.
        var reserved = counters.Reserve(big ? Math.Min(BigTransactionChunk, wanted) : wanted);
        if (reserved == 0)
        {
            return false;
        }

        var written = 0;
        var transaction = (SqlTransaction)await connection.BeginTransactionAsync(abort).ConfigureAwait(false);
        try
        {
            if (big)
            {
                // Set-based chunks; the end of the duration ends the transaction early (it is committed as it stands).
                var chunk = reserved;
                while (true)
                {
                    await ExecuteAsync(connection, transaction, WorkloadSql.InsertRows, chunk, abort).ConfigureAwait(false);
                    written += chunk;
                    if (written >= wanted || stop.IsCancellationRequested || (chunk = counters.Reserve(Math.Min(BigTransactionChunk, wanted - written))) == 0)
                    {
                        break;
                    }

                    reserved += chunk;
                }
            }
            else
            {
                // A batch always completes, so every commit but the last of a row limit carries exactly k rows.
                for (; written < reserved; written++)
                {
                    await ExecuteAsync(connection, transaction, InsertStatement, rows: null, abort).ConfigureAwait(false);
                }
            }

            var committing = options.Time.GetTimestamp();
            await transaction.CommitAsync(abort).ConfigureAwait(false);
            counters.Latency.Add(options.Time.GetElapsedTime(committing));
        }
        catch
        {
            counters.Release(reserved);
            if (abort.IsCancellationRequested)
            {
                // Closing the connection makes the server roll back, whatever state the cancelled statement left.
                await DropConnectionAsync(clearPool: true).ConfigureAwait(false);
            }
            else
            {
                await RollbackQuietlyAsync(transaction).ConfigureAwait(false);
            }

            throw;
        }
        finally
        {
            await transaction.DisposeAsync().ConfigureAwait(false);
        }

        await CommittedAsync(connection, written, abort).ConfigureAwait(false);
        return true;
    }

    private string InsertStatement => scenario switch
    {
        WorkloadScenario.SequenceNoCache => WorkloadSql.InsertFromSequenceNoCache,
        WorkloadScenario.SequenceCache => WorkloadSql.InsertFromSequenceCache,
        _ => WorkloadSql.InsertRow,
    };

    private async Task ExecuteAsync(SqlConnection connection, SqlTransaction? transaction, string sql, int? rows, CancellationToken abort)
    {
        await using var command = new SqlCommand(sql, connection, transaction) { CommandTimeout = connector.CommandTimeoutSeconds };
        if (rows is { } n)
        {
            command.Parameters.Add("@rows", SqlDbType.Int).Value = n;
        }

        command.Parameters.Add("@session", SqlDbType.Int).Value = session;
        command.Parameters.Add("@payload", SqlDbType.VarChar, 200).Value = Payload;
        await command.ExecuteNonQueryAsync(abort).ConfigureAwait(false);
    }

    /// <summary>Counts the commit, and empties the tables once they hold <see cref="WorkloadOptions.MaxRowsKept"/> rows.</summary>
    private async Task CommittedAsync(SqlConnection connection, int rows, CancellationToken abort)
    {
        var kept = counters.Committed(rows);
        // One transaction for the whole run would hold the table lock TRUNCATE waits for: never empty then.
        if (options.MaxRowsKept is not { } max || kept < max || rowsPerTransaction == 0 || !counters.TryBeginTruncate())
        {
            return;
        }

        var emptied = 0L;
        try
        {
            await using var command = new SqlCommand(WorkloadSql.Truncate, connection) { CommandTimeout = connector.CommandTimeoutSeconds };
            await command.ExecuteNonQueryAsync(abort).ConfigureAwait(false);
            emptied = kept;
        }
        finally
        {
            counters.EndTruncate(emptied);
        }
    }

    private static async Task RollbackQuietlyAsync(SqlTransaction transaction)
    {
        try
        {
            if (transaction.Connection is { State: ConnectionState.Open })
            {
                await transaction.RollbackAsync(CancellationToken.None).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is SqlException or InvalidOperationException or IOException)
        {
            // A deadlock victim's transaction is already gone, a broken connection takes it with it.
        }
    }

    private async Task DropConnectionAsync(bool clearPool = false)
    {
        if (_connection is { } c)
        {
            _connection = null;
            if (clearPool || c.State != ConnectionState.Open)
            {
                SqlConnection.ClearPool(c);
            }

            await c.DisposeAsync().ConfigureAwait(false);
        }
    }
}
