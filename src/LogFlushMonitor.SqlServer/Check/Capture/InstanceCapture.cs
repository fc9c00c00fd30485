using System.Data;
using System.Diagnostics;
using System.Text.RegularExpressions;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Check.Capture;

/// <summary>
/// <c>check --capture</c> for one instance: sends the statements the product sends (the same constants of Sql/*.cs) and
/// records what the server answers, raw; reads the live stream of a temporary session (<c>&lt;SessionName&gt;_check</c>,
/// the one <c>check</c> already uses) and its histogram target, and drops that session again, also on error or cancel.
/// A statement that fails is recorded with the server's error and the capture goes on. Plain SqlCommand, not Dapper:
/// the rows are kept as the server typed them, whatever the product's row classes would make of them.
/// </summary>
public static class InstanceCapture
{
    /// <summary>Captures <paramref name="instance"/>; never throws for server-side problems (they are in the result), only for cancellation.</summary>
    public static async Task<InstanceCaptureResult> CaptureAsync(SqlServerInstanceOptions instance, SqlServerSourceOptions fleet, CaptureSettings settings,
        Func<string, string?>? environment, TimeProvider time, CancellationToken ct)
    {
        var result = new InstanceCaptureResult { Instance = instance.Name };
        SqlServerDataSource source;
        try
        {
            source = SqlServerDataSource.Create(instance, fleet, environment);
        }
        catch (InvalidOperationException e)
        {
            result.Problems.Add(e.Message);
            return result;
        }

        var timeout = Math.Max(1, (int)Math.Ceiling(fleet.CommandTimeout.TotalSeconds));
        SqlConnection connection;
        try
        {
            connection = await source.OpenAsync(ct).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OperationCanceledException || !ct.IsCancellationRequested)
        {
            result.Problems.Add($"cannot connect: {SqlServerLog.Safe(e)}");
            return result;
        }

        await using (connection.ConfigureAwait(false))
        {
            var run = new Runner(connection, timeout, time, result);
            await run.SendAsync("server_properties", CheckSql.ServerProperties, ct).ConfigureAwait(false);
            var version = await run.SendAsync("version", CheckSql.VersionDetails, ct).ConfigureAwait(false);
            var edition = version.Rows.Count == 1 && version.Rows[0][^1] is int ee ? ee : 0;
            await run.SendAsync("xe_objects", XeSql.Objects, ct).ConfigureAwait(false);
            await run.SendAsync("xe_event_columns", XeSql.EventColumns, ct).ConfigureAwait(false);
            await run.SendAsync("xe_writelog_keys", XeSql.WriteLogKeys, ct).ConfigureAwait(false);
            await run.SendAsync("xe_hadr_sync_commit_keys", XeSql.HadrSyncCommitKeys, ct).ConfigureAwait(false);
            await run.SendAsync("xe_log_wait_keys", XeSql.LogWaitKeys, ct).ConfigureAwait(false);
            await run.SendAsync("xe_all_databases", XeSql.AllDatabases, ct).ConfigureAwait(false);
            await run.SendAsync("xe_user_databases", XeSql.UserDatabases, ct).ConfigureAwait(false);
            var server = ServerProfile.Of(instance.Azure, connection.ServerVersion, edition);
            var (name, sessions) = CheckProbes.TemporarySession(instance, timeout);
            var created = false;
            Task? stream = null;
            using var streamWindow = CancellationTokenSource.CreateLinkedTokenSource(ct);
            try
            {
                try
                {
                    var capabilities = await sessions.ReadCapabilitiesAsync(connection, ct).ConfigureAwait(false);
                    var databases = await sessions.ResolveDatabasesAsync(connection, ct).ConfigureAwait(false);
                    var ddl = sessions.BuildStreamSessionDdl(capabilities, databases, fleet.HistogramSlots);
                    result.Session = name;
                    created = true;
                    var clock = Stopwatch.StartNew();
                    await sessions.EnsureAsync(connection, name, () => ddl, ct).ConfigureAwait(false);
                    result.Statements.Add(new CapturedStatement { Name = "create_session", Text = ddl, StartedUtc = time.GetUtcNow().UtcDateTime, ElapsedMs = clock.Elapsed.TotalMilliseconds });
                    streamWindow.CancelAfter(settings.StreamTime);
                    stream = ReadStreamAsync(source, name, settings, time, result, streamWindow.Token, ct);
                }
                catch (Exception e) when (e is SqlException or InvalidOperationException or NotSupportedException && !ct.IsCancellationRequested)
                {
                    result.Problems.Add($"the temporary event session {XeSessionName.Quote(name)} could not be created and started: {SqlServerLog.Safe(e)}");
                    result.StreamEnd = "no stream: the session could not be created";
                }

                await PollAsync(run, server, name, 1, ct).ConfigureAwait(false);
                await Task.Delay(settings.PollGap, time, ct).ConfigureAwait(false);
                await PollAsync(run, server, name, 2, ct).ConfigureAwait(false);
                if (!server.AzureSqlDatabase)
                {
                    await run.SendAsync("hidden_databases", CheckSql.HiddenDatabases, ct).ConfigureAwait(false);
                }
                if (stream is not null)
                {
                    try
                    {
                        // The window closes the stream; a stream that does not close in time is a problem, not a hang.
                        await stream.WaitAsync(settings.StreamTime + fleet.ConnectTimeout + fleet.CommandTimeout, time, ct).ConfigureAwait(false);
                    }
                    catch (TimeoutException)
                    {
                        result.Problems.Add("the live stream did not close when its window ended; its rows so far are kept");
                    }

                    var histogram = instance.Azure
                        ? await run.SendAsync("histogram_target", XeSql.DatabaseHistogramData, ct, ("name", name)).ConfigureAwait(false)
                        : await run.SendAsync("histogram_target", XeSql.ServerHistogramData, ct, ("name", name)).ConfigureAwait(false);
                    result.HistogramXml = histogram.Rows.Count > 0 ? histogram.Rows[0][0] as string : null;
                }
            }
            finally
            {
                await streamWindow.CancelAsync().ConfigureAwait(false);
                if (stream is not null)
                {
                    try
                    {
                        await stream.WaitAsync(fleet.CommandTimeout, time, CancellationToken.None).ConfigureAwait(false);
                    }
                    catch (Exception e) when (e is TimeoutException or OperationCanceledException or SqlException or InvalidOperationException or IOException)
                    {
                        // Cancelled with the rest (SqlClient reports a cancelled command as a SqlException): the session is dropped below all the same.
                    }
                }

                if (created)
                {
                    await DropAsync(source, connection, sessions, name, fleet, result).ConfigureAwait(false);
                }
            }
        }

        return result;
    }

    /// <summary>
    /// One poll of every statement the signals send on this server (<see cref="SignalRegistry.All"/>, in their order; the
    /// event session whose drops are read is the temporary one). Every variant a signal may pick at run time is sent
    /// (the counters' named and whole-object statements), so the capture answers either.
    /// </summary>
    private static async Task PollAsync(Runner run, ServerProfile server, string session, int poll, CancellationToken ct)
    {
        foreach (var signal in SignalRegistry.All)
        {
            foreach (var statement in signal.Statements(server))
            {
                var parameter = statement.Parameters is { Count: > 0 } p
                    ? (p.First().Key, p.First().Key == "name" ? session : p.First().Value) // @name: the event session, the temporary one here
                    : ((string, object)?)null;
                await run.SendAsync(statement.Name, statement.Text, ct, parameter, poll).ConfigureAwait(false);
            }
        }
    }

    /// <summary>
    /// Reads <c>sys.fn_MSxe_read_event_stream</c> raw until <paramref name="window"/> ends: each row's type and bytes as they
    /// came, on a connection of its own (the stream blocks it). The window's end cancels the command, which SqlClient
    /// surfaces as an error: that is the normal end here.
    /// </summary>
    private static async Task ReadStreamAsync(SqlServerDataSource source, string session, CaptureSettings settings, TimeProvider time,
        InstanceCaptureResult result, CancellationToken window, CancellationToken ct)
    {
        await Task.Yield();
        try
        {
            var connection = await source.OpenAsync(window).ConfigureAwait(false);
            await using (connection.ConfigureAwait(false))
            {
                // Blocking reads on a thread of their own, stopped by SqlCommand.Cancel, as the live-stream source reads.
                await Task.Factory.StartNew(() => ReadRows(connection, session, settings, time, result, window), CancellationToken.None,
                    TaskCreationOptions.LongRunning, TaskScheduler.Default).ConfigureAwait(false);
            }

            result.StreamEnd = "the server ended the stream before the window closed";
        }
        catch (Exception e) when (window.IsCancellationRequested && !ct.IsCancellationRequested)
        {
            _ = e;
            result.StreamEnd = $"read for {settings.StreamTime.TotalSeconds:0.###} s, then closed by the capture";
        }
        catch (Exception e) when (e is SqlException or InvalidOperationException or IOException && !ct.IsCancellationRequested)
        {
            result.StreamEnd = $"failed: {SqlServerLog.Safe(e)}";
            result.Problems.Add($"the live stream (sys.fn_MSxe_read_event_stream) failed: {SqlServerLog.Safe(e)}");
        }
    }

    private static void ReadRows(SqlConnection connection, string session, CaptureSettings settings, TimeProvider time, InstanceCaptureResult result, CancellationToken window)
    {
        long kept = 0;
        using var command = new SqlCommand(XeSql.ReadEventStream, connection) { CommandTimeout = 0 };
        command.Parameters.Add(new SqlParameter("@name", SqlDbType.NVarChar, 128) { Value = session });
        using var stop = window.Register(command.Cancel);
        window.ThrowIfCancellationRequested();
        using var reader = command.ExecuteReader(CommandBehavior.SequentialAccess);
        while (reader.Read())
        {
            var type = reader.GetInt32(0);
            var data = reader.IsDBNull(1) ? null : reader.GetFieldValue<byte[]>(1);
            result.StreamRowTypes.Count(type, data?.Length ?? -1); // every row received, kept or not
            if (kept + (data?.Length ?? 0) > settings.MaxStreamBytes)
            {
                result.StreamRowsOverLimit++;
                continue;
            }

            kept += data?.Length ?? 0;
            result.StreamRows.Add(new CapturedStreamRow(type, data, time.GetUtcNow().UtcDateTime));
        }
    }

    /// <summary>Drops the temporary session, on a new connection when the capture's own one broke; says so when it cannot.</summary>
    private static async Task DropAsync(SqlServerDataSource source, SqlConnection connection, EventSessionManager sessions, string name, SqlServerSourceOptions fleet, InstanceCaptureResult result)
    {
        using var budget = new CancellationTokenSource(fleet.CommandTimeout + fleet.ConnectTimeout);
        try
        {
            if (connection.State == ConnectionState.Open)
            {
                await sessions.StopAsync(connection, name, budget.Token).ConfigureAwait(false);
                return;
            }

            var fresh = await source.OpenAsync(budget.Token).ConfigureAwait(false);
            await using (fresh.ConfigureAwait(false))
            {
                await sessions.StopAsync(fresh, name, budget.Token).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is SqlException or InvalidOperationException or IOException or OperationCanceledException)
        {
            result.Problems.Add($"could not drop the temporary event session {XeSessionName.Quote(name)}: {SqlServerLog.Safe(e)}; drop it by hand.");
        }
    }

    /// <summary>Sends statements on the capture's connection and records each answer or error.</summary>
    private sealed class Runner(SqlConnection connection, int timeout, TimeProvider time, InstanceCaptureResult result)
    {
        public async Task<CapturedStatement> SendAsync(string name, string text, CancellationToken ct, (string Name, object Value)? parameter = null, int? poll = null)
        {
            var sent = text;
            var parameters = new Dictionary<string, object>(StringComparer.Ordinal);
            var started = time.GetUtcNow().UtcDateTime;
            var clock = Stopwatch.StartNew();
            CapturedStatement statement;
            try
            {
                using var command = new SqlCommand { Connection = connection, CommandTimeout = timeout };
                if (parameter is { } p)
                {
                    parameters[p.Name] = p.Value;
                    if (p.Value is string[] list)
                    {
                        // What Dapper sends for "IN @list": one parameter per item, @list1, @list2, ...
                        sent = ListParameter(p.Name).Replace(text, "(" + string.Join(",", list.Select((_, i) => $"@{p.Name}{i + 1}")) + ")");
                        for (var i = 0; i < list.Length; i++)
                        {
                            command.Parameters.Add(new SqlParameter($"@{p.Name}{i + 1}", SqlDbType.NVarChar, 4000) { Value = list[i] });
                        }
                    }
                    else
                    {
                        command.Parameters.Add(new SqlParameter("@" + p.Name, SqlDbType.NVarChar, 4000) { Value = p.Value });
                    }
                }

                command.CommandText = sent;
                var reader = await command.ExecuteReaderAsync(ct).ConfigureAwait(false);
                await using (reader.ConfigureAwait(false))
                {
                    var columns = Enumerable.Range(0, reader.FieldCount).Select(i => (reader.GetName(i), reader.GetDataTypeName(i))).ToList();
                    var rows = new List<object?[]>();
                    while (await reader.ReadAsync(ct).ConfigureAwait(false))
                    {
                        var row = new object?[reader.FieldCount];
                        for (var i = 0; i < row.Length; i++)
                        {
                            row[i] = await reader.IsDBNullAsync(i, ct).ConfigureAwait(false) ? null : reader.GetValue(i);
                        }

                        rows.Add(row);
                    }

                    statement = new CapturedStatement { Name = name, Poll = poll, Text = text, Columns = columns, Rows = rows };
                }
            }
            catch (SqlException e) when (!ct.IsCancellationRequested)
            {
                statement = new CapturedStatement { Name = name, Poll = poll, Text = text, ErrorNumber = e.Number, ErrorMessage = e.Message };
            }
            catch (Exception e) when (e is InvalidOperationException or IOException && !ct.IsCancellationRequested)
            {
                statement = new CapturedStatement { Name = name, Poll = poll, Text = text, ErrorNumber = 0, ErrorMessage = SqlServerLog.Safe(e) };
            }

            statement = statement with
            {
                Sent = sent == text ? null : sent, Parameters = parameters, StartedUtc = started, ElapsedMs = clock.Elapsed.TotalMilliseconds,
            };
            result.Statements.Add(statement);
            return statement;
        }

        private static Regex ListParameter(string name) => new($@"@{Regex.Escape(name)}\b", RegexOptions.CultureInvariant);
    }
}
