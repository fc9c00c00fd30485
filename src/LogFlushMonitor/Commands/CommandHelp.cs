using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Parsing;

namespace LogFlushMonitor.Commands;

/// <summary>
/// Help text adjustments. Commands that take configuration keys (<c>--Section:Key=value</c>, TreatUnmatchedTokensAsErrors
/// off) would otherwise show System.CommandLine's "[[--] &lt;additional arguments&gt;...]]" (unbalanced, and not what
/// they take) and "Arguments passed to the application that is being run".
/// </summary>
internal static class CommandHelp
{
    /// <summary>The usage line's word for configuration keys.</summary>
    public const string SettingsUsage = "[--Section:Key=value ...]";

    /// <summary>Installs the layout on the root command's help (it serves every subcommand).</summary>
    public static void Customize(RootCommand root)
    {
        if (root.Options.OfType<HelpOption>().FirstOrDefault()?.Action is HelpAction help)
        {
            help.Builder.CustomizeLayout(Layout);
        }
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

    private static IEnumerable<Func<HelpContext, bool>> Layout(HelpContext context)
    {
        if (context.Command.TreatUnmatchedTokensAsErrors)
        {
            return HelpBuilder.Default.GetLayout();
        }

        return
        [
            HelpBuilder.Default.SynopsisSection(),
            Usage,
            HelpBuilder.Default.CommandArgumentsSection(),
            HelpBuilder.Default.SubcommandsSection(),
            HelpBuilder.Default.OptionsSection(),
            Settings,
        ];
    }

    private static bool Usage(HelpContext context)
    {
        var command = context.Command;
        var parts = new List<string> { Program.Name, command.Name };
        parts.AddRange(command.Arguments.Where(a => !a.Hidden).Select(a => $"<{a.HelpName ?? a.Name}>"));
        if (command.Options.Any(o => !o.Hidden))
        {
            parts.Add("[options]");
        }

        parts.Add(SettingsUsage);
        context.Output.WriteLine("Usage:");
        context.Output.WriteLine("  " + string.Join(' ', parts));
        return true;
    }

    private static bool Settings(HelpContext context)
    {
        context.Output.WriteLine("Configuration keys:");
        context.Output.WriteLine("  --Section:Key=value  Any configuration key (docs/configuration.md lists them all), e.g. --Log:Level=Debug or");
        context.Output.WriteLine("                       --Sources:SqlServer:Instances:0:Name=prod1. Unknown keys are reported as warnings.");
        return true;
    }
}
