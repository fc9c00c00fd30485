namespace LogFlushMonitor.Hosting;

/// <summary>Logs what <see cref="ConfigurationCheck"/> found ignored (unknown keys) or risky (a secret file others can read).</summary>
internal static partial class ConfigurationWarnings
{
    public static void Log(ILogger logger, IReadOnlyList<string> warnings)
    {
        foreach (var warning in warnings)
        {
            LogWarning(logger, warning);
        }
    }

    [LoggerMessage(EventId = 20, Level = LogLevel.Warning, Message = "{Warning}")]
    private static partial void LogWarning(ILogger logger, string warning);
}
