namespace LogFlushMonitor.Core.Signals;

/// <summary>
/// How far behind the primary an availability replica may fall before its alert fires, by commit mode, and per replica
/// where one is known to lag (an asynchronous replica over a slow link may always be minutes behind: DBA Dash #1291).
/// Exported as <c>sqlserver.replica.behind.threshold</c> beside each secondary's time behind, so the shipped rules compare
/// the two and a threshold is changed in the monitor's configuration (<c>Replicas</c>), not in the rules.
/// </summary>
/// <param name="Synchronous">A synchronous-commit replica's threshold (a page: the failover without data loss is at stake).</param>
/// <param name="Asynchronous">An asynchronous-commit replica's threshold (First Responder Kit #3635 asks for "more than 60 seconds behind").</param>
/// <param name="Replicas">Thresholds of replicas by name (sys.availability_replicas.replica_server_name, ignoring case), whatever their mode.</param>
public sealed record ReplicaBehindThresholds(TimeSpan Synchronous, TimeSpan Asynchronous, IReadOnlyDictionary<string, TimeSpan> Replicas)
{
    /// <summary>10 s for a synchronous replica, 60 s for an asynchronous one, none per replica.</summary>
    public static ReplicaBehindThresholds Default { get; } = new(TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(60), new Dictionary<string, TimeSpan>());

    /// <summary>The threshold of <paramref name="replica"/>, whose commit mode is <paramref name="availabilityMode"/> (availability_mode_desc).</summary>
    public TimeSpan For(string replica, string availabilityMode)
    {
        ArgumentNullException.ThrowIfNull(replica);
        ArgumentNullException.ThrowIfNull(availabilityMode);
        foreach (var (name, threshold) in Replicas)
        {
            if (string.Equals(name, replica, StringComparison.OrdinalIgnoreCase))
            {
                return threshold;
            }
        }

        return IsSynchronous(availabilityMode) ? Synchronous : Asynchronous;
    }

    /// <summary>Whether availability_mode_desc names synchronous commit.</summary>
    public static bool IsSynchronous(string availabilityMode) => availabilityMode.StartsWith("SYNCHRONOUS", StringComparison.OrdinalIgnoreCase);
}
