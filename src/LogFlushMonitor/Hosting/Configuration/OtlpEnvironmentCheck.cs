using System.Globalization;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Checks the OpenTelemetry specification's OTLP exporter variables that the exporter reads by itself (endpoint,
/// protocol, timeout, headers, and their _METRICS_ forms) where no Exporters:Otlp setting of ours overrides them.
/// The exporter falls back to its defaults without a word on a value it cannot use, or throws at start with a stack
/// trace (headers), so they are checked here first. Following the specification's guidance for numbers and for
/// values out of a set (warn and use the default), a bad <c>_PROTOCOL</c> or <c>_TIMEOUT</c> is a warning; an
/// endpoint that is not an http(s) URL, and headers that are not key=value pairs or hold a control character (CR, LF:
/// a header that would be cut or forged), stop the start, since either would send nothing anywhere. Header values are
/// never quoted: they hold API keys.
/// </summary>
internal static class OtlpEnvironmentCheck
{
    private const string Prefix = "OTEL_EXPORTER_OTLP_";

    /// <summary>The export timeout the exporter uses when none is given (the specification's default).</summary>
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(10);

    /// <summary>Errors (exit 2) and warnings (a default is used instead) about the variables that apply to <paramref name="otlp"/>.</summary>
    public static (IReadOnlyList<string> Errors, IReadOnlyList<string> Warnings) Inspect(OtlpOptions otlp, Func<string, string?> environment)
    {
        var errors = new List<string>();
        var warnings = new List<string>();
        if (string.IsNullOrWhiteSpace(otlp.Endpoint) && Setting("ENDPOINT", environment) is ({ } endpointVariable, { } endpoint)
            && EndpointProblem(endpoint) is { } endpointProblem)
        {
            errors.Add($"{endpointVariable} {endpointProblem}. Set the collector's address, e.g. http://otel-collector:4317 for grpc or http://otel-collector:4318 for http/protobuf, or set Exporters:Otlp:Endpoint.");
        }

        if (string.IsNullOrWhiteSpace(otlp.Protocol) && Setting("PROTOCOL", environment) is ({ } protocolVariable, { } protocol)
            && protocol.Trim() is not ("grpc" or "http/protobuf"))
        {
            warnings.Add($"{protocolVariable} is '{Shown(protocol)}', which this exporter does not support: grpc is used. Use grpc or http/protobuf (or set Exporters:Otlp:Protocol).");
        }

        if (otlp.Timeout is null && Setting("TIMEOUT", environment) is ({ } timeoutVariable, { } timeout) && TimeoutOf(timeout) is null)
        {
            warnings.Add($"{timeoutVariable} is '{Shown(timeout)}', which is not a whole number of milliseconds from 1 to {int.MaxValue}: the default of {DefaultTimeout.TotalSeconds:0} s is used. Give e.g. 10000 (or set Exporters:Otlp:Timeout).");
        }

        if (string.IsNullOrWhiteSpace(otlp.Headers) && Setting("HEADERS", environment) is ({ } headersVariable, { } headers)
            && HeadersProblem(headers) is { } headersProblem)
        {
            errors.Add($"{headersVariable} {headersProblem}. Write it as key1=value1,key2=value2 (or set Exporters:Otlp:Headers).");
        }

        return (errors, warnings);
    }

    /// <summary>The timeout a variable's value gives (whole milliseconds, 1 to int.MaxValue), or null when it is not one.</summary>
    public static TimeSpan? TimeoutOf(string value) =>
        int.TryParse(value.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out var ms) && ms > 0 ? TimeSpan.FromMilliseconds(ms) : null;

    /// <summary>Why <paramref name="endpoint"/> cannot be an OTLP endpoint, or null. Its text is not repeated: it may hold credentials.</summary>
    public static string? EndpointProblem(string endpoint) =>
        !Uri.TryCreate(endpoint.Trim(), UriKind.Absolute, out var uri) ? "is not an absolute URL"
        : uri.Scheme != Uri.UriSchemeHttp && uri.Scheme != Uri.UriSchemeHttps ? $"is a {uri.Scheme}:// URL; OTLP goes over http or https"
        : null;

    /// <summary>
    /// Why <paramref name="headers"/> is not a list of key=value pairs separated by commas (the form the exporter
    /// parses), or null. Says which pair by its position, never its text.
    /// </summary>
    public static string? HeadersProblem(string headers)
    {
        var pairs = headers.Split(',');
        for (var i = 0; i < pairs.Length; i++)
        {
            var pair = pairs[i];
            var equals = pair.IndexOf('=', StringComparison.Ordinal);
            if (equals < 0 || pair[..equals].Trim().Length == 0)
            {
                return $"is not a list of key=value pairs: pair {i + 1} of {pairs.Length} has {(equals < 0 ? "no '='" : "no key")} (its text is not shown: it may hold a secret)";
            }

            if (pair.AsSpan().IndexOfAnyInRange('\0', '\u001F') >= 0 || pair.Contains('\u007F', StringComparison.Ordinal))
            {
                return $"holds a control character (such as CR or LF) in pair {i + 1} of {pairs.Length}, which would cut or forge an HTTP header (its text is not shown: it may hold a secret)";
            }
        }

        return null;
    }

    /// <summary>The variable that sets <paramref name="name"/> for metrics (the _METRICS_ form when set, else the general one) and its value.</summary>
    private static (string? Variable, string? Value) Setting(string name, Func<string, string?> environment)
    {
        var specific = Prefix + "METRICS_" + name;
        if (environment(specific) is { Length: > 0 } value && !string.IsNullOrWhiteSpace(value))
        {
            return (specific, value);
        }

        var general = environment(Prefix + name);
        return string.IsNullOrWhiteSpace(general) ? (null, null) : (Prefix + name, general);
    }

    /// <summary>A protocol or timeout as it may appear in a message: escaped and short.</summary>
    private static string Shown(string value) => LogEscaping.Escape(value.Length <= 40 ? value : value[..40] + "...");
}
