using System.CommandLine;
using System.CommandLine.Parsing;

namespace LogFlushMonitor.Commands;

/// <summary>
/// Help text adjustments. Commands that take configuration keys (<c>--Section:Key=value</c>, TreatUnmatchedTokensAsErrors
/// off) get System.CommandLine's "[[--] &lt;additional arguments&gt;...]]" in their usage line (unbalanced, and not what
/// they take) and "Arguments passed to the application that is being run". Its help layout API takes a type that is
/// not public in 2.0, so the text is rewritten after it is written.
/// </summary>
internal static class CommandHelp
{
    /// <summary>The usage line's word for configuration keys.</summary>
    public const string SettingsUsage = "[--Section:Key=value ...]";

    private const string AdditionalArgumentsUsage = "[[--] <additional arguments>...]]";

    private const string AdditionalArgumentsSection = "Additional Arguments:";

    /// <summary>Help text with the configuration keys described as they are given.</summary>
    public static string Rewrite(string help)
    {
        if (!help.Contains(AdditionalArgumentsUsage, StringComparison.Ordinal))
        {
            return help;
        }

        var lines = help.Replace(AdditionalArgumentsUsage, SettingsUsage, StringComparison.Ordinal).Split('\n').ToList();
        var section = lines.FindIndex(l => l.TrimEnd() == AdditionalArgumentsSection);
        if (section >= 0)
        {
            var end = lines.FindIndex(section + 1, l => l.Trim().Length == 0);
            lines.RemoveRange(section, (end < 0 ? lines.Count : end) - section);
            lines.InsertRange(section,
            [
                "Configuration keys:",
                "  --Section:Key=value  Any configuration key (docs/configuration.md lists them all), e.g. --Log:Level=Debug or",
                "                       --Sources:SqlServer:Instances:0:Name=prod1. Unknown keys are reported as warnings.",
            ]);
        }

        return string.Join('\n', lines);
    }

    /// <summary><c>logflushmonitor run</c> for the run command's result; <c>logflushmonitor</c> for the root.</summary>
    public static string PathOf(CommandResult result)
    {
        var names = new List<string>();
        for (SymbolResult? r = result; r is CommandResult c; r = c.Parent)
        {
            if (c.Command is not RootCommand)
            {
                names.Insert(0, c.Command.Name);
            }
        }

        return string.Join(' ', [Program.Name, .. names]);
    }
}
