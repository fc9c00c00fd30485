namespace LogFlushMonitor.SqlServer.Check;

/// <summary>Writes <c>check</c> results as plain text, one block per instance.</summary>
public static class CheckReport
{
    /// <summary>Writes every result and a last line saying whether all is well.</summary>
    public static void Write(TextWriter output, IReadOnlyList<InstanceCheckResult> results)
    {
        foreach (var r in results)
        {
            output.WriteLine($"{r.Instance}: {(r.Ok ? "OK" : "PROBLEMS")}");
            if (r.Target is not null)
            {
                output.WriteLine($"  target:     {r.Target}");
            }

            if (r.ProductVersion is not null)
            {
                output.WriteLine($"  version:    {r.ProductVersion}, {r.Edition}, engine edition {r.EngineEdition}");
            }

            if (r.Encrypted is { } e)
            {
                output.WriteLine($"  encrypted:  {(e ? "yes" : "no")}");
            }

            foreach (var p in r.Permissions)
            {
                var held = p.Held switch { true => "held", false when p.Optional => "missing (optional)", false => "MISSING", null => "unknown here" };
                output.WriteLine($"  permission: {p.Permission}: {held} ({p.Purpose})");
            }

            foreach (var c in r.WillCollect)
            {
                output.WriteLine($"  collects:   {c}");
            }

            foreach (var v in r.Storage)
            {
                output.WriteLine($"  storage:    {v}");
            }

            foreach (var p in r.Problems)
            {
                output.WriteLine($"  problem:    {p}");
            }

            foreach (var w in r.Warnings)
            {
                output.WriteLine($"  warning:    {w}");
            }

            foreach (var a in r.Advice)
            {
                output.WriteLine($"  advice:     {a}");
            }
        }

        var bad = results.Count(r => !r.Ok);
        output.WriteLine(bad == 0 ? $"All {results.Count} instance(s) OK." : $"{bad} of {results.Count} instance(s) have problems.");
    }
}
