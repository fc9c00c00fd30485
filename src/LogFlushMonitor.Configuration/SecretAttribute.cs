namespace LogFlushMonitor.Configuration;

/// <summary>
/// The value can hold a secret (a connection string with its password, OTLP headers with an API key): no message, log
/// line or check output ever quotes it. The generated schema carries it (<see cref="SettingNode.Secret"/>).
/// </summary>
[AttributeUsage(AttributeTargets.Property, AllowMultiple = false)]
public sealed class SecretAttribute : Attribute;

/// <summary>
/// A class bound from a configuration section. The generator (LogFlushMonitor.Configuration.Generator) gives it a
/// static <c>Schema</c>, the section's keys with the form, default, rules and secrecy of each, built from its properties:
/// the one description of the keys, used for strict binding, messages and the documentation check. The class must be
/// partial; a property of a class type must be of another such class.
/// </summary>
[AttributeUsage(AttributeTargets.Class, AllowMultiple = false, Inherited = false)]
public sealed class SettingsSectionAttribute : Attribute;

/// <summary>A <see cref="SettingsSectionAttribute"/> class, as the generator completes it: its schema from an instance.</summary>
public interface ISettingsSection
{
    /// <summary>The section's keys (the class's static <c>Schema</c>). A method: the configuration binder's generator would try to bind a property.</summary>
    SettingNode GetSettingsSchema();
}
