using System.Security.Cryptography;

namespace LogFlushMonitor.Testing;

/// <summary>
/// Credentials for connection strings in tests (against closed ports, scripted servers that accept any login, or
/// just to be parsed): made fresh for each test run, so no password is written in the repository, and a test that
/// checks a log or an error for leaks looks for a value nothing else could contain.
/// </summary>
public static class TestSecrets
{
    /// <summary>A random password of this test run.</summary>
    public static string Password { get; } = "t" + Convert.ToHexString(RandomNumberGenerator.GetBytes(12));
}
