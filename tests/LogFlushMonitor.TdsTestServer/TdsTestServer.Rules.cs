namespace LogFlushMonitor.TdsTestServer;

public sealed partial class TdsTestServer
{
    private readonly Lock _rulesGate = new();
    private Func<TdsRequest, TdsResponse?>[] _rules = [];

    /// <summary>
    /// Adds a handler after the existing ones. For each request the handlers run in order and the first
    /// non-null response is sent; with none, the client gets error 208 so an unscripted statement is loud.
    /// </summary>
    public TdsTestServer Handle(Func<TdsRequest, TdsResponse?> handler)
    {
        ArgumentNullException.ThrowIfNull(handler);
        lock (_rulesGate)
        {
            _rules = [.. _rules, handler];
        }

        return this;
    }

    /// <summary>Answers requests matching <paramref name="predicate"/> with what <paramref name="respond"/> builds.</summary>
    public TdsTestServer When(Func<TdsRequest, bool> predicate, Func<TdsRequest, TdsResponse> respond) =>
        Handle(request => predicate(request) ? respond(request) : null);

    /// <summary>Answers requests whose text contains <paramref name="textFragment"/> (ignoring case) with <paramref name="response"/>.</summary>
    public TdsTestServer When(string textFragment, TdsResponse response) =>
        Handle(request => request.Text.Contains(textFragment, StringComparison.OrdinalIgnoreCase) ? response : null);

    /// <summary>Answers requests whose text contains <paramref name="textFragment"/> (ignoring case) with what <paramref name="respond"/> builds.</summary>
    public TdsTestServer When(string textFragment, Func<TdsRequest, TdsResponse> respond) =>
        Handle(request => request.Text.Contains(textFragment, StringComparison.OrdinalIgnoreCase) ? respond(request) : null);

    /// <summary>
    /// Rewrites the rows of every (non-streaming) result set the rules answer with, after the rules chose them: a broken
    /// or hostile server (NULL cells, negative or huge numbers, rows twice) in front of any scripted answer. Null: the
    /// rules' rows as they are.
    /// </summary>
    public Func<TdsRequest, IReadOnlyList<TdsColumn>, IEnumerable<object?[]>, IEnumerable<object?[]>>? RowRewriter { get; set; }

    /// <summary>The steps of <paramref name="request"/>'s answer, with <see cref="RowRewriter"/> applied.</summary>
    internal IEnumerable<TdsStep> StepsFor(TdsRequest request)
    {
        var steps = Resolve(request).Steps;
        return RowRewriter is { } rewrite ? steps.Select(s => s.Rewritten((columns, rows) => rewrite(request, columns, rows))) : steps;
    }

    internal TdsResponse Resolve(TdsRequest request)
    {
        foreach (var rule in Volatile.Read(ref _rules))
        {
            if (rule(request) is { } response)
            {
                return response;
            }
        }

        var text = request.Text.Length > 200 ? request.Text[..200] + "..." : request.Text;
        return TdsResponse.Failure(208, $"Invalid object name. TdsTestServer has no rule for: {text}");
    }
}
