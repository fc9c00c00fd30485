using System.CommandLine;
using System.CommandLine.Invocation;
using System.Reflection;

namespace LogFlushMonitor.Analysis.Commands;

/// <summary>
/// What <c>--version</c> prints, in both programs: the program's name, its version and the commit it was built from,
/// e.g. <c>logflushmonitor 1.2.3 (commit abc1234)</c> (System.CommandLine would print the bare informational version).
/// </summary>
public static class ProgramVersion
{
    /// <summary>Makes <paramref name="root"/>'s <c>--version</c> print <see cref="Describe"/> of the entry assembly.</summary>
    public static RootCommand WithVersionLine(this RootCommand root, string programName, Assembly assembly)
    {
        ArgumentNullException.ThrowIfNull(root);
        ArgumentNullException.ThrowIfNull(assembly);
        var line = Describe(programName, assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion);
        root.Options.OfType<VersionOption>().Single().Action = new PrintLine(line);
        return root;
    }

    /// <summary>
    /// "name version (commit abc1234)" from the informational version the SDK writes: the Version, then '+' and the
    /// SourceRevisionId (the commit; build/release.sh sets both, Source Link sets the commit in any build from a git
    /// checkout). A Version that carries its own build metadata gets the commit after a '.' instead. Without a commit
    /// (a build from an exported tree) the line says so rather than guessing.
    /// </summary>
    internal static string Describe(string programName, string? informationalVersion)
    {
        var text = string.IsNullOrWhiteSpace(informationalVersion) ? "unknown" : informationalVersion.Trim();
        var plus = text.IndexOf('+', StringComparison.Ordinal);
        if (plus < 0)
        {
            return $"{programName} {text} (commit unknown)";
        }

        var version = text[..plus];
        var metadata = text[(plus + 1)..];
        var commit = metadata[(metadata.LastIndexOf('.') + 1)..];
        if (!IsCommit(commit))
        {
            return $"{programName} {text} (commit unknown)";
        }

        var other = metadata[..Math.Max(0, metadata.Length - commit.Length - 1)];
        var shown = other.Length == 0 ? version : $"{version}+{other}";
        return $"{programName} {shown} (commit {commit[..Math.Min(7, commit.Length)]})";
    }

    // A git object name: at least the 7 hexadecimal digits git abbreviates to.
    private static bool IsCommit(string text) => text.Length >= 7 && text.All(char.IsAsciiHexDigit);

    private sealed class PrintLine(string line) : SynchronousCommandLineAction
    {
        // As System.CommandLine's own version action: --version wins over errors in the rest of the line.
        public override bool ClearsParseErrors => true;

        public override int Invoke(ParseResult parseResult)
        {
            parseResult.InvocationConfiguration.Output.WriteLine(line);

            // Success, as System.CommandLine's own version action returns (the programs' exit codes are theirs; this one
            // is the only one an action says without them).
            return 0;
        }
    }
}
