namespace LogFlushMonitor.Configuration;

/// <summary>How a configuration key is written in each place an operator sets it, and in messages.</summary>
public static class SettingKeys
{
    /// <summary>Prefix of environment variables read as configuration (LOGFLUSHMONITOR__Http__Urls).</summary>
    public const string EnvironmentPrefix = "LOGFLUSHMONITOR__";

    /// <summary>The environment variable that sets <paramref name="key"/> (Sources:Simulate:Speed: LOGFLUSHMONITOR__SOURCES__SIMULATE__SPEED).</summary>
    public static string EnvironmentVariable(string key) =>
        EnvironmentPrefix + key.Replace(":", "__", StringComparison.Ordinal).ToUpperInvariant();

    /// <summary>"configuration key K, environment variable E": where a message tells the operator to fix a value.</summary>
    public static string Where(string key) => $"configuration key {key}, environment variable {EnvironmentVariable(key)}";

    /// <summary>
    /// The configuration key of a member as the source-generated options validator names it: its validators are called
    /// with the section's key as the name (<c>Sources:SqlServer</c>) or <see cref="Root"/> for the root, and append
    /// <c>.Member</c> and <c>[index]</c> (<c>Sources:SqlServer.Instances[0].Name</c>: <c>Sources:SqlServer:Instances:0:Name</c>).
    /// </summary>
    public static string KeyOf(string displayName)
    {
        ArgumentNullException.ThrowIfNull(displayName);
        var name = displayName.StartsWith(Root + ".", StringComparison.Ordinal) ? displayName[(Root.Length + 1)..] : displayName;
        return name.Replace("]", "", StringComparison.Ordinal).Replace('[', ':').Replace('.', ':');
    }

    /// <summary>The name the root section's validator is called with (its members' keys have no prefix).</summary>
    public const string Root = "~";

    /// <summary>
    /// A value as a message may show it: control characters escaped (a value must not move the cursor, ring the bell or
    /// start a new line on a terminal or in a log), at most 200 characters. Only for values that hold no secret.
    /// </summary>
    public static string Quote(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        var shown = value.Length <= 200 ? value : value[..200] + "...";
        var builder = new System.Text.StringBuilder(shown.Length + 2).Append('\'');
        foreach (var c in shown)
        {
            if (char.IsControl(c) || c is '\u2028' or '\u2029')
            {
                builder.Append(c switch { '\n' => "\\n", '\r' => "\\r", '\t' => "\\t", _ => $"\\u{(int)c:X4}" });
            }
            else
            {
                builder.Append(c);
            }
        }

        return builder.Append('\'').ToString();
    }
}
