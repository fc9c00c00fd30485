namespace LogFlushMonitor.Core.Health;

/// <summary>
/// What a source tells the readiness probe: that it is not ready yet (and why), and which instances it watches, whose
/// state is then read from <see cref="SourceHealth"/>. The host implements it; a source library uses it when the host
/// offers one.
/// </summary>
public interface ISourceReadiness
{
    /// <summary>Marks <paramref name="component"/> as not ready, with the reason a probe shows.</summary>
    void NotReady(string component, string reason);

    /// <summary>
    /// <paramref name="component"/> watches these instances: each must deliver once, and none may stay down past the
    /// grace period. Lifts <see cref="NotReady"/>.
    /// </summary>
    void ExpectInstances(string component, IEnumerable<string> instances);
}

/// <summary>
/// One bounded shutdown for every source, offered by the host: every source is cancelled when the shutdown begins, all
/// of them together get one timeout, and a source still running after it is named and abandoned.
/// </summary>
public interface ISourceShutdown
{
    /// <summary>Cancelled when the shutdown begins, before any service is asked to stop.</summary>
    CancellationToken Stopping { get; }

    /// <summary>What is left of the sources' shutdown timeout.</summary>
    TimeSpan Remaining { get; }

    /// <summary>Records and logs that <paramref name="source"/> had not ended in time.</summary>
    void DidNotStop(string source);
}
