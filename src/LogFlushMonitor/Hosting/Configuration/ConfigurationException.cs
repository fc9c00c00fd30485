namespace LogFlushMonitor.Hosting;

/// <summary>
/// The configuration cannot be used (<see cref="ConfigurationCheck"/> found values that would not bind): nothing
/// started. Commands print <see cref="Errors"/> one per line and exit 2.
/// </summary>
public sealed class ConfigurationException : InvalidOperationException
{
    /// <summary>Creates the exception from the problems found.</summary>
    public ConfigurationException(IReadOnlyList<string> errors, IReadOnlyList<string> warnings)
        : base(string.Join(" ", errors))
    {
        Errors = errors;
        Warnings = warnings;
    }

    /// <summary>Each problem: the key, its value, the form expected, and where to fix it.</summary>
    public IReadOnlyList<string> Errors { get; }

    /// <summary>Keys that were ignored (unknown, or near a known one), printed with the errors since no log exists yet.</summary>
    public IReadOnlyList<string> Warnings { get; }
}
