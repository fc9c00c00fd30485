using System.Globalization;
using Dapper;
using LogFlushMonitor.Core.Signals;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Polling;
using LogFlushMonitor.SqlServer.Resilience;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Sql;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Check;

/// <summary>
/// Connects to one instance and reports its version, the permissions held and missing for its version, whether
/// the connection is encrypted, which event fields exist, and what the monitor will collect.
/// </summary>
public static class InstanceChecker
{
    /// <summary>Permission names whose rows sys.master_files shows (for log file latency and the log's room); any one suffices.</summary>
    private static readonly string[] MasterFilesPermissions = ["VIEW ANY DEFINITION", "ALTER ANY DATABASE", "CREATE DATABASE"];

    /// <summary>
    /// Checks <paramref name="instance"/>; never throws for server-side problems (they are in the result). An unreachable
    /// server is reported within ConnectTimeout; every failure is named by its kind (unreachable, protocol, tls, ...).
    /// </summary>
    public static async Task<InstanceCheckResult> CheckAsync(SqlServerInstanceOptions instance, SqlServerSourceOptions fleet, Func<string, string?>? environment, CancellationToken cancellationToken)
    {
        SqlServerDataSource source;
        try
        {
            source = SqlServerDataSource.Create(instance, fleet, environment);
        }
        catch (InvalidOperationException e)
        {
            return new InstanceCheckResult { Instance = instance.Name, Problems = [e.Message] };
        }

        var target = source.Target;
        var timeout = Math.Max(1, (int)Math.Ceiling(fleet.CommandTimeout.TotalSeconds));
        SqlConnection connection;
        // SqlClient may overrun its connect timeout (a slow TLS handshake, a silent server): check answers within it plus a second.
        using (var connectBudget = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
        {
            connectBudget.CancelAfter(source.ConnectTimeout + TimeSpan.FromSeconds(1));
            try
            {
                connection = await source.OpenAsync(connectBudget.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                return Failed($"cannot connect ({SqlErrorKinds.Timeout}): no answer within {(source.ConnectTimeoutNote is null ? $"ConnectTimeout ({fleet.ConnectTimeout})" : $"the connection string's Connect Timeout ({source.ConnectTimeout})")}.");
            }
            catch (SqlException e) when (ConnectionSecurity.IsTlsFailure(e))
            {
                return Failed($"cannot connect ({SqlErrorKinds.Tls}): {ConnectionSecurity.ExplainTlsFailure(e, source.ConnectionString)}");
            }
            catch (Exception e) when (e is not OperationCanceledException)
            {
                var failure = FailureClassifier.Classify(e);
                return Failed($"cannot connect ({failure.Kind}): {Explain(failure, e, fleet)}");
            }
        }

        await using (connection.ConfigureAwait(false))
        {
            try
            {
                return await CheckConnectedAsync(source, fleet, connection, target, timeout, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
            {
                var failure = FailureClassifier.Classify(e, connection.State != System.Data.ConnectionState.Open);
                return Failed($"check failed ({failure.Kind}): {Explain(failure, e, fleet)}");
            }
        }

        InstanceCheckResult Failed(string problem) => new() { Instance = instance.Name, Target = target, Problems = [problem] };
    }

    /// <summary>What a failure means for someone at the keyboard; by kind, with the server's own words where it has some.</summary>
    private static string Explain(SourceFailure failure, Exception e, SqlServerSourceOptions fleet) => failure.Kind switch
    {
        SqlErrorKinds.Unreachable => $"nothing answered at that address ({SqlServerLog.Safe(e)}). Is the server running, is Server= (host, port or instance) right, does a firewall let this machine through?",
        SqlErrorKinds.Protocol => $"the server's answer is not SQL Server's protocol (TDS): is that port a SQL Server, or is a proxy in between? ({(e.InnerException ?? e).GetType().Name} in SqlClient)",
        SqlErrorKinds.Timeout => $"{SqlServerLog.Safe(e)} (ConnectTimeout {fleet.ConnectTimeout}, CommandTimeout {fleet.CommandTimeout})",
        // SqlClient's own words about what it cannot do here (e.g. globalization-invariant mode); they hold no secret.
        SqlErrorKinds.Unsupported => $"{e.GetType().Name}: {e.Message}",
        SqlErrorKinds.Unexpected => $"{e.GetType().FullName}: a bug in LogFlushMonitor, please report it with this line",
        _ => SqlServerLog.Safe(e),
    };

    /// <summary>
    /// Whether the connection is encrypted. With Encrypt=Mandatory or Strict SqlClient connects only encrypted, so no
    /// question is needed (and none that wants a permission: sys.dm_exec_connections needs VIEW SERVER STATE). With
    /// Encrypt=Optional the server decides: its own row of sys.dm_exec_connections says, when the login may read it;
    /// otherwise the answer is unknown (null), never a failed check.
    /// </summary>
    private static async Task<bool?> EncryptedAsync(SqlConnection connection, SqlServerDataSource source, int timeout, CancellationToken ct)
    {
        var encrypt = source.Encrypt;
        if (encrypt == SqlConnectionEncryptOption.Mandatory || encrypt == SqlConnectionEncryptOption.Strict)
        {
            return true;
        }

        try
        {
            var option = await connection.QuerySingleOrDefaultAsync<string?>(CheckSql.ConnectionEncryption, ct, commandTimeout: timeout).ConfigureAwait(false);
            return option is null ? null : string.Equals(option, "TRUE", StringComparison.OrdinalIgnoreCase);
        }
        catch (SqlException) when (connection.State == System.Data.ConnectionState.Open)
        {
            return null; // no permission to read the DMV: the permission list below says what is missing
        }
    }

    private static async Task<InstanceCheckResult> CheckConnectedAsync(SqlServerDataSource source, SqlServerSourceOptions fleet, SqlConnection connection, string target, int timeout, CancellationToken ct)
    {
        var instance = source.Options;
        var props = await connection.QuerySingleAsync<Properties>(CheckSql.ServerProperties, ct, commandTimeout: timeout).ConfigureAwait(false);
        var encrypted = await EncryptedAsync(connection, source, timeout, ct).ConfigureAwait(false);
        var major = int.TryParse(props.ProductVersion?.Split('.')[0], NumberStyles.None, CultureInfo.InvariantCulture, out var m) ? m : 0;
        var azureDb = instance.Azure || props.EngineEdition == 5;

        async Task<PermissionStatus> Has(string permission, string purpose)
        {
            var held = azureDb
                ? await connection.QuerySingleAsync<int?>(CheckSql.HasDatabasePermission, new { permission, ct }, commandTimeout: timeout).ConfigureAwait(false)
                : await connection.QuerySingleAsync<int?>(CheckSql.HasServerPermission, new { permission, ct }, commandTimeout: timeout).ConfigureAwait(false);
            return new PermissionStatus(permission, held is null ? null : held == 1, purpose);
        }

        var permissions = new List<PermissionStatus>();
        var problems = new List<string>();
        var warnings = new List<string>();
        var advice = new List<string>();
        bool stateOk, sessionOk, filesOk;
        if (azureDb)
        {
            permissions.Add(await Has("VIEW DATABASE STATE", "counters, waits, file stats, session drops").ConfigureAwait(false));
            permissions.Add(await Has("ALTER ANY DATABASE EVENT SESSION", "the monitor's database-scoped event session").ConfigureAwait(false));
            stateOk = permissions[0].Held == true;
            sessionOk = permissions[1].Held == true;
            filesOk = stateOk;
        }
        else
        {
            var state = await Has("VIEW SERVER STATE", "counters, waits, file stats, session drops, the live stream").ConfigureAwait(false);
            permissions.Add(state);
            var perf = major >= 16 ? await Has("VIEW SERVER PERFORMANCE STATE", "the same, narrower (2022+)").ConfigureAwait(false) : null;
            if (perf is not null)
            {
                permissions.Add(perf);
            }

            var alter = await Has("ALTER ANY EVENT SESSION", "create, start, stop and drop the event session").ConfigureAwait(false);
            permissions.Add(alter);
            var fine = new List<PermissionStatus>();
            if (major >= 16 && alter.Held != true)
            {
                foreach (var grant in Setup.SetupScripts.EventSessionGrants2022)
                {
                    fine.Add(await Has(grant, "event session (2022 finer grant)").ConfigureAwait(false));
                }

                permissions.AddRange(fine);
            }

            var files = new List<PermissionStatus>();
            foreach (var p in MasterFilesPermissions)
            {
                files.Add(await Has(p, "log file latency and the log's room: max size, growth, headroom, time to full (rows of sys.master_files)").ConfigureAwait(false));
                if (files[^1].Held == true)
                {
                    break;
                }
            }

            // One line for one optional need: any of the three shows sys.master_files' rows (issue 35: three MISSING lines).
            permissions.Add(files.FirstOrDefault(f => f.Held == true) is { } held
                ? held with { Optional = true }
                : new PermissionStatus(
                    $"{MasterFilesPermissions[0]} (or {string.Join(", or ", MasterFilesPermissions.Skip(1))})",
                    files.Any(f => f.Held == false) ? false : null,
                    files[0].Purpose,
                    Optional: true));
            stateOk = state.Held == true || perf?.Held == true;
            sessionOk = alter.Held == true || (fine.Count > 0 && fine.All(f => f.Held == true));
            filesOk = files.Any(f => f.Held == true);
        }

        if (!stateOk)
        {
            problems.Add((azureDb ? "VIEW DATABASE STATE" : major >= 16 ? "VIEW SERVER PERFORMANCE STATE (or VIEW SERVER STATE)" : "VIEW SERVER STATE")
                + " is missing: no counters, waits, file stats or events. Run the script of `logflushmonitor setup-sql`.");
        }

        if (!sessionOk)
        {
            problems.Add((azureDb ? "ALTER ANY DATABASE EVENT SESSION" : "ALTER ANY EVENT SESSION (or the 2022 event-session grants)")
                + " is missing: the monitor cannot create or start its event session. Run the script of `logflushmonitor setup-sql`.");
        }

        if (!filesOk)
        {
            warnings.Add("log file latency and the log's room (max size, growth, headroom, so the time to full and the SqlServerLogFullSoon page) need VIEW ANY DEFINITION (sys.master_files rows); everything else works without it, and SqlServerLogAlmostFull falls back to the percentage.");
        }

        warnings.AddRange(ConnectionSecurity.Warnings(source.ConnectionString, encrypted));

        if (stateOk)
        {
            try
            {
                var (noCounters, missingDatabases) = await CounterCoverage.CheckAsync(instance, connection, timeout, ct).ConfigureAwait(false);
                problems.AddRange(noCounters is null ? [] : [noCounters]);
                warnings.AddRange(missingDatabases is null ? [] : [missingDatabases]);
            }
            catch (SqlException) when (connection.State == System.Data.ConnectionState.Open)
            {
                // The counter statement itself failed: the probe of the counter poll below names it with the server's words.
            }
        }

        var queryStore = new List<string>();
        if (stateOk)
        {
            // The statements themselves, not HAS_PERMS_BY_NAME's opinion of them (issue 19 item 6).
            await CheckProbes.PollsAsync(source, fleet, connection, filesOk, problems, warnings, advice, queryStore, ct).ConfigureAwait(false);
        }

        var collect = new List<string>();
        IReadOnlyList<string> storage = [];
        if (stateOk)
        {
            collect.Add("performance counters: Databases object (Log Flushes/sec, Log Bytes Flushed/sec, Log Flush Waits/sec, Log Flush Wait Time, ...)");
            collect.Add("wait stats: WRITELOG, LOGBUFFER, LOG_RATE_GOVERNOR family");
            collect.Add("commit budget per database: local flush, I/O-governance queue, synchronous replica, log buffer, log-rate governor");
            if (azureDb || props.EngineEdition == 8)
            {
                collect.Add("log-rate cap: " + SignalRegistry.LogRate.Describe(ServerProfile.Of(azureDb, connection.ServerVersion, props.EngineEdition ?? 0)));
            }

            // The log writes held against the storage they run on (issue 33 item 3): information, never a problem.
            storage = await CheckStorage.VerdictsAsync(source, connection, timeout, ct).ConfigureAwait(false);
            if (filesOk)
            {
                collect.Add("log file I/O: writes, bytes, write stall (average log write latency)");
            }

            // Which statement tells why the log cannot be reused on this version (issue 32): the DMV, or before 2016 SP2 the catalog.
            var profile = ServerProfile.Of(azureDb, connection.ServerVersion, props.EngineEdition ?? 0);
            collect.Add("log space: " + SignalRegistry.LogSpace.Describe(profile));
            if (filesOk || azureDb)
            {
                collect.Add("log room: " + SignalRegistry.LogFiles.Describe(profile));
            }

            collect.AddRange(queryStore); // each database's Query Store state and the statements that wrote most log recently
        }

        if (stateOk && sessionOk)
        {
            collect.Add(await DescribeEventsAsync(instance, connection, warnings, ct).ConfigureAwait(false));
            await CheckProbes.EventsAsync(source, connection, timeout, problems, warnings, collect, ct).ConfigureAwait(false);
        }

        return new InstanceCheckResult
        {
            Instance = instance.Name,
            Target = target,
            ProductVersion = props.ProductVersion,
            Edition = props.Edition,
            EngineEdition = props.EngineEdition,
            Encrypted = encrypted,
            Permissions = permissions,
            WillCollect = collect,
            Problems = problems,
            Warnings = warnings,
            Storage = storage,
            Advice = advice,
        };
    }

    /// <summary>Which events and fields exist, from the event session manager's capability probe.</summary>
    private static async Task<string> DescribeEventsAsync(SqlServerInstanceOptions instance, SqlConnection connection, List<string> warnings, CancellationToken ct)
    {
        try
        {
            var c = await new EventSessionManager(instance).ReadCapabilitiesAsync(connection, ct).ConfigureAwait(false);
            if (!c.HasFlushStart)
            {
                warnings.Add("sqlserver.log_flush_start does not exist on this server: no write-size histogram from events.");
            }

            return $"events (mode {instance.Mode}, session {instance.SessionName}): log_flush_start {(c.HasFlushStart ? "yes" : "no")}"
                + $" (write_size {(c.FlushStartHasWriteSize ? "yes" : "no")}, database_id {(c.FlushStartHasDatabaseId ? "yes" : "no")}),"
                + $" log_flush_complete {(c.HasFlushComplete ? "yes" : "no")}, WRITELOG per database {(c.CanCollectWriteLog ? "yes via " + c.WaitEvent : "no")},"
                + $" histogram target {(c.HasHistogramTarget ? "yes" : "no")}";
        }
        catch (SqlException e)
        {
            warnings.Add($"could not read the Extended Events catalog: {SqlServerLog.Safe(e)}");
            return $"events (mode {instance.Mode}, session {instance.SessionName}): fields unknown";
        }
    }

    internal sealed class Properties
    {
        public string? ProductVersion { get; set; }

        public string? Edition { get; set; }

        public int? EngineEdition { get; set; }
    }
}
