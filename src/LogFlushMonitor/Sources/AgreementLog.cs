using System.Globalization;
using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;

namespace LogFlushMonitor.Sources;

/// <summary>
/// Says each change of an agreement check once (issue 19 item 2): a lasting disagreement between the events and the
/// server's own figures (a warning naming the quantity, both figures and the likely cause; /readyz degraded with the
/// same text), its end, and a wait duration unit corrected by a clean factor of 1,000.
/// </summary>
internal sealed partial class AgreementLog(ILogger logger, SourceHealth health)
{
    /// <summary>The component a disagreement is shown under in /readyz.</summary>
    internal const string Component = "events";

    public void Report(AgreementReport r)
    {
        var kind = "disagreement:" + r.QuantityName;
        if (r.Correction is { } correction)
        {
            LogCorrected(logger, r.Instance, r.QuantityName, Figure(r.Events), Figure(r.Server), correction);
            health.SetProblem(r.Instance, Component, kind, null);
            return;
        }

        if (r.Verdict is { } verdict && verdict != AgreementVerdict.Agrees)
        {
            var cause = r.LikelyCause;
            LogDisagrees(logger, r.Instance, r.QuantityName, Figure(r.Events), Figure(r.Server), cause);
            health.SetProblem(r.Instance, Component, kind,
                $"events and the server disagree on {r.QuantityName} (events {Figure(r.Events)}, server {Figure(r.Server)}): {cause}", countError: false);
        }
        else
        {
            LogAgrees(logger, r.Instance, r.QuantityName);
            health.SetProblem(r.Instance, Component, kind, null);
        }
    }

    private static string Figure(double value) => value.ToString("#,0.###", CultureInfo.InvariantCulture);

    [LoggerMessage(EventId = 322, Level = LogLevel.Warning, Message = "{Instance}: the events and the server's own figures disagree on {Quantity} for several windows in a row (events {Events}, server {Server} in the last window): likely {Cause}. sqlserver.monitor.agreement shows the ratio; /readyz says degraded until they agree again")]
    private static partial void LogDisagrees(ILogger logger, string instance, string quantity, string events, string server, string cause);

    [LoggerMessage(EventId = 323, Level = LogLevel.Information, Message = "{Instance}: the events and the server agree on {Quantity} again")]
    private static partial void LogAgrees(ILogger logger, string instance, string quantity);

    [LoggerMessage(EventId = 324, Level = LogLevel.Warning, Message = "{Instance}: {Quantity} of the wait events was a clean factor of 1,000 off the server's own figure for several windows (events {Events}, server {Server}): the wait duration unit was wrong; {Correction}")]
    private static partial void LogCorrected(ILogger logger, string instance, string quantity, string events, string server, string correction);
}
