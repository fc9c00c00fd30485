using System.Threading.Channels;
using LogFlushMonitor.TdsTestServer.Protocol;

namespace LogFlushMonitor.TdsTestServer;

/// <summary>One part of a scripted <see cref="TdsResponse"/>.</summary>
public abstract class TdsStep
{
    private protected TdsStep()
    {
    }

    internal abstract Task RunAsync(ResponseContext context);

    /// <summary>The same step with its rows rewritten (a result set's); other steps stay as they are.</summary>
    internal virtual TdsStep Rewritten(Func<IReadOnlyList<TdsColumn>, IEnumerable<object?[]>, IEnumerable<object?[]>> rewrite) => this;
}

internal sealed class ResultSetStep(IReadOnlyList<TdsColumn> columns, IEnumerable<object?[]> rows) : TdsStep
{
    internal override TdsStep Rewritten(Func<IReadOnlyList<TdsColumn>, IEnumerable<object?[]>, IEnumerable<object?[]>> rewrite) =>
        new ResultSetStep(columns, rewrite(columns, rows));

    internal override async Task RunAsync(ResponseContext context)
    {
        TdsRowWriter.WriteColMetadata(context.Tokens, columns);
        long count = 0;
        foreach (var row in rows)
        {
            context.Attention.ThrowIfCancellationRequested();
            TdsRowWriter.WriteRow(context.Tokens, columns, row);
            count++;
            await context.PumpAsync();
        }

        context.EndStatement(TdsTokens.DoneCount, count);
    }
}

internal sealed class StreamingResultSetStep(IReadOnlyList<TdsColumn> columns, Func<CancellationToken, IAsyncEnumerable<object?[]>> rows) : TdsStep
{
    internal override async Task RunAsync(ResponseContext context)
    {
        TdsRowWriter.WriteColMetadata(context.Tokens, columns);
        await context.FlushNowAsync();
        long count = 0;
        await foreach (var row in rows(context.Attention).WithCancellation(context.Attention))
        {
            TdsRowWriter.WriteRow(context.Tokens, columns, row);
            count++;
            // Each row goes out at once: the client is blocked waiting for it, as with a live XE stream.
            await context.FlushNowAsync();
        }

        context.EndStatement(TdsTokens.DoneCount, count);
    }

    public static Func<CancellationToken, IAsyncEnumerable<object?[]>> From(ChannelReader<object?[]> reader) =>
        token => reader.ReadAllAsync(token);
}

internal sealed class RowsAffectedStep(long count) : TdsStep
{
    internal override Task RunAsync(ResponseContext context)
    {
        context.EndStatement(TdsTokens.DoneCount, count);
        return Task.CompletedTask;
    }
}

internal sealed class MessageStep(bool error, int number, byte state, byte @class, string message) : TdsStep
{
    internal override Task RunAsync(ResponseContext context)
    {
        TdsTokens.WriteMessage(context.Tokens, error, number, state, @class, message, context.ServerName);
        if (error)
        {
            context.HadError = true;
            context.EndStatement(TdsTokens.DoneError, 0);
        }

        return Task.CompletedTask;
    }
}

internal sealed class DelayStep(TimeSpan delay) : TdsStep
{
    internal override async Task RunAsync(ResponseContext context)
    {
        await context.FlushNowAsync();
        await Task.Delay(delay, context.TimeProvider, context.Attention);
    }
}

internal sealed class CutStep(int afterBytes) : TdsStep
{
    internal override Task RunAsync(ResponseContext context) => context.Sender.ArmCutAsync(afterBytes, context.Lifetime);
}

internal sealed class ActionStep(Func<CancellationToken, Task> action) : TdsStep
{
    internal override async Task RunAsync(ResponseContext context)
    {
        await context.FlushNowAsync();
        await action(context.Attention);
    }
}
