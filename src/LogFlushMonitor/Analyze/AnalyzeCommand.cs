using System.CommandLine;

namespace LogFlushMonitor.Cli;

/// <summary><c>logflushmonitor analyze</c> (being built).</summary>
internal static class AnalyzeCommand
{
    public static Command Create()
    {
        var command = new Command("analyze", "Analyse .xel files (not finished yet).");
        command.SetAction(_ => ExitCodes.Failure);
        return command;
    }
}
