using System.Buffers.Binary;
using System.Net.Sockets;
using System.Text;

namespace LogFlushMonitor.TdsTestServer.Tests;

/// <summary>A hand-rolled TDS client for sending what SqlClient never would (malformed messages).</summary>
internal sealed class RawClient : IDisposable
{
    private readonly TcpClient _client;
    private readonly NetworkStream _stream;

    private RawClient(TcpClient client)
    {
        _client = client;
        _stream = client.GetStream();
    }

    /// <summary>ALL_HEADERS with one transaction descriptor header (22 bytes).</summary>
    public static byte[] AllHeaders =>
        [22, 0, 0, 0, 18, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0];

    public static async Task<RawClient> LoginAsync(int port, string user, string password)
    {
        var client = new TcpClient();
        await client.ConnectAsync("127.0.0.1", port);
        var raw = new RawClient(client);
        // PRELOGIN: VERSION (6 bytes) and ENCRYPTION = NOT_SUP (1 byte), then the terminator.
        await raw.SendAsync(0x12, [0, 0, 11, 0, 6, 1, 0, 17, 0, 1, 0xFF, 1, 0, 0, 0, 0, 0, 2]);
        _ = await raw.ReadMessageAsync() ?? throw new InvalidOperationException("no PRELOGIN answer");
        await raw.SendAsync(0x10, Login7(user, password));
        var answer = await raw.ReadMessageAsync() ?? throw new InvalidOperationException("no LOGIN7 answer");
        if (Array.IndexOf(answer, (byte)0xAD) < 0)
        {
            throw new InvalidOperationException("login was not acknowledged");
        }

        return raw;
    }

    private static byte[] Login7(string user, string password)
    {
        var userBytes = Encoding.Unicode.GetBytes(user);
        var passwordBytes = Encoding.Unicode.GetBytes(password);
        for (var i = 0; i < passwordBytes.Length; i++)
        {
            var b = passwordBytes[i];
            passwordBytes[i] = (byte)(((b << 4) | (b >> 4)) ^ 0xA5);
        }

        var data = new byte[94 + userBytes.Length + passwordBytes.Length];
        BinaryPrimitives.WriteInt32LittleEndian(data, data.Length);
        BinaryPrimitives.WriteUInt32LittleEndian(data.AsSpan(4), 0x74000004);
        BinaryPrimitives.WriteInt32LittleEndian(data.AsSpan(8), 4096);
        for (var entry = 36; entry < 90; entry += 4)
        {
            BinaryPrimitives.WriteUInt16LittleEndian(data.AsSpan(entry), 94); // every field empty at the data start
        }

        BinaryPrimitives.WriteUInt16LittleEndian(data.AsSpan(42), (ushort)user.Length);
        BinaryPrimitives.WriteUInt16LittleEndian(data.AsSpan(44), (ushort)(94 + userBytes.Length));
        BinaryPrimitives.WriteUInt16LittleEndian(data.AsSpan(46), (ushort)password.Length);
        userBytes.CopyTo(data, 94);
        passwordBytes.CopyTo(data, 94 + userBytes.Length);
        return data;
    }

    public async Task SendAsync(byte type, byte[] payload)
    {
        var packet = new byte[payload.Length + 8];
        packet[0] = type;
        packet[1] = 1; // EOM
        BinaryPrimitives.WriteUInt16BigEndian(packet.AsSpan(2), (ushort)packet.Length);
        packet[6] = 1;
        payload.CopyTo(packet, 8);
        await _stream.WriteAsync(packet);
    }

    /// <summary>Reads one whole message, or null when the server closed the connection.</summary>
    public async Task<byte[]?> ReadMessageAsync()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        using var message = new MemoryStream();
        var header = new byte[8];
        while (true)
        {
            try
            {
                if (await _stream.ReadAtLeastAsync(header, 8, throwOnEndOfStream: false, timeout.Token) < 8)
                {
                    return null;
                }
            }
            catch (IOException)
            {
                return null; // reset by the server
            }

            var body = new byte[BinaryPrimitives.ReadUInt16BigEndian(header.AsSpan(2)) - 8];
            await _stream.ReadExactlyAsync(body, timeout.Token);
            message.Write(body);
            if ((header[1] & 1) != 0)
            {
                return message.ToArray();
            }
        }
    }

    public void Dispose() => _client.Dispose();
}
