using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>One alert as Alertmanager's webhook delivered it, with when it arrived.</summary>
/// <param name="Receiver">The Alertmanager receiver that sent it (page, warning).</param>
/// <param name="Status">firing or resolved (the alert's own status).</param>
/// <param name="Labels">The alert's labels.</param>
/// <param name="Annotations">The alert's annotations.</param>
/// <param name="Arrived">When it arrived.</param>
internal sealed record DeliveredAlert(string Receiver, string Status, IReadOnlyDictionary<string, string> Labels, IReadOnlyDictionary<string, string> Annotations, DateTimeOffset Arrived)
{
    public string Label(string name) => Labels.GetValueOrDefault(name) ?? "";
}

/// <summary>
/// The webhook endpoint Alertmanager's receivers post to in a test: Kestrel on a free port of 127.0.0.1, one path per
/// receiver (<c>/page</c>, <c>/warning</c>), keeping every alert of every notification.
/// </summary>
internal sealed class WebhookReceiver : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly List<DeliveredAlert> _alerts = [];

    private WebhookReceiver(WebApplication app) => _app = app;

    /// <summary>http://127.0.0.1:port, the base of every receiver's URL.</summary>
    public string BaseUrl { get; private set; } = "";

    /// <summary>Every alert delivered so far, in arrival order.</summary>
    public IReadOnlyList<DeliveredAlert> Alerts
    {
        get
        {
            lock (_alerts)
            {
                return [.. _alerts];
            }
        }
    }

    public static async Task<WebhookReceiver> StartAsync()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders();
        var receiver = new WebhookReceiver(builder.Build());
        receiver._app.MapPost("/{name}", async (string name, HttpContext context) =>
        {
            using var body = await JsonDocument.ParseAsync(context.Request.Body);
            receiver.Add(name, body.RootElement);
            return Results.Ok();
        });
        await receiver._app.StartAsync();
        receiver.BaseUrl = receiver._app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        return receiver;
    }

    public async ValueTask DisposeAsync() => await _app.DisposeAsync();

    private void Add(string path, JsonElement notification)
    {
        // The webhook payload (version 4): the notification's receiver and its alerts, each with status, labels, annotations.
        var receiver = notification.GetProperty("receiver").GetString() ?? path;
        var arrived = TimeProvider.System.GetUtcNow();
        lock (_alerts)
        {
            foreach (var alert in notification.GetProperty("alerts").EnumerateArray())
            {
                _alerts.Add(new DeliveredAlert(
                    receiver,
                    alert.GetProperty("status").GetString()!,
                    Strings(alert.GetProperty("labels")),
                    Strings(alert.GetProperty("annotations")),
                    arrived));
            }
        }
    }

    private static Dictionary<string, string> Strings(JsonElement map) =>
        map.EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetString() ?? "", StringComparer.Ordinal);
}
