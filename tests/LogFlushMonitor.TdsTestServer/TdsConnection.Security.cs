using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using LogFlushMonitor.TdsTestServer.Tls;

namespace LogFlushMonitor.TdsTestServer;

/// <summary>TLS for one connection: TDS 8 (TLS first) or TDS 7.x (TLS inside PRELOGIN packets).</summary>
internal sealed partial class TdsConnection
{
    /// <summary>The first byte of a TLS handshake record: a TDS 8 client's ClientHello ([MS-TDS] 3.3.5.1).</summary>
    private const byte TlsHandshakeRecord = 0x16;

    /// <summary>ALPN protocol of TDS 8.</summary>
    private static readonly SslApplicationProtocol Tds8 = new("tds/8.0");

    private SslStream? _tls;

    /// <summary>The client's first byte without taking it off the socket, or null when it closed first.</summary>
    private async Task<byte?> PeekFirstByteAsync(CancellationToken token)
    {
        var first = new byte[1];
        var got = await socket.ReceiveAsync(first, SocketFlags.Peek, token);
        return got == 0 ? null : first[0];
    }

    /// <summary>TDS 8: the TLS handshake runs on the bare socket, with ALPN tds/8.0; false when it failed (logged).</summary>
    private async Task<bool> StartStrictTlsAsync(TransportStream transport, CancellationToken token)
    {
        var tls = new SslStream(transport.Socket, leaveInnerStreamOpen: true);
        if (!await AuthenticateAsync(tls, strict: true, token))
        {
            return false;
        }

        transport.Current = tls;
        return true;
    }

    /// <summary>TDS 7.x: the TLS handshake travels inside PRELOGIN packets, then the session goes on in raw TLS records.</summary>
    private async Task<bool> StartTlsInPreLoginAsync(TransportStream transport, CancellationToken token)
    {
        var framing = new PreLoginFramingStream(transport.Socket);
        var tls = new SslStream(framing, leaveInnerStreamOpen: true);
        if (!await AuthenticateAsync(tls, strict: false, token))
        {
            return false;
        }

        framing.StopFraming();
        transport.Current = tls;
        return true;
    }

    private async Task<bool> AuthenticateAsync(SslStream tls, bool strict, CancellationToken token)
    {
        _tls = tls;
        var options = new SslServerAuthenticationOptions
        {
            ServerCertificate = server.Options.Certificate,
            // SQL Server speaks TLS 1.3 only in TDS 8; TDS 7.x clients get TLS 1.2, as from SQL Server 2022.
            EnabledSslProtocols = strict ? SslProtocols.Tls12 | SslProtocols.Tls13 : SslProtocols.Tls12,
            ApplicationProtocols = strict ? [Tds8] : null,
            ClientCertificateRequired = false,
            CertificateRevocationCheckMode = System.Security.Cryptography.X509Certificates.X509RevocationMode.NoCheck,
        };
        try
        {
            await tls.AuthenticateAsServerAsync(options, token);
        }
        catch (Exception ex) when (ex is AuthenticationException or IOException)
        {
            // Typically the client rejected the certificate: it closes or alerts in the middle of the handshake.
            server.Log(Id, $"TLS handshake failed ({(strict ? "TDS 8" : "inside PRELOGIN")}): {ex.Message}{(ex.InnerException is { } inner ? " (" + inner.Message + ")" : string.Empty)}");
            return false;
        }

        if (strict && tls.NegotiatedApplicationProtocol != Tds8)
        {
            server.Log(Id, $"TDS 8 client did not agree on ALPN tds/8.0 (got '{tls.NegotiatedApplicationProtocol}'): connection closed");
            return false;
        }

        server.Log(Id, $"TLS up ({(strict ? "TDS 8, TLS first" : "inside PRELOGIN")}): {tls.SslProtocol}, {tls.NegotiatedCipherSuite}");
        return true;
    }
}
