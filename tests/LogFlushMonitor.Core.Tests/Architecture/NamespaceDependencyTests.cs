using System.Reflection;
using System.Reflection.Emit;
using LogFlushMonitor.Core.Aggregation;

namespace LogFlushMonitor.Core.Tests.Architecture;

/// <summary>
/// Which namespaces of Core use which, read from the compiled assembly: every type's base, interfaces, fields, method
/// signatures and the members each method body touches (its IL), lambdas and iterators included (they compile to
/// nested types). Aggregation, Metrics and Health must not depend on each other in a cycle.
/// </summary>
public sealed class NamespaceDependencyTests
{
    private const string Aggregation = "LogFlushMonitor.Core.Aggregation";
    private const string Metrics = "LogFlushMonitor.Core.Metrics";
    private const string Health = "LogFlushMonitor.Core.Health";

    private static readonly Dictionary<short, OpCode> OpCodesByValue = typeof(OpCodes)
        .GetFields(BindingFlags.Public | BindingFlags.Static)
        .Select(f => (OpCode)f.GetValue(null)!)
        .ToDictionary(o => o.Value);

    [Fact]
    public void Aggregation_metrics_and_health_depend_on_each_other_without_a_cycle()
    {
        var edges = Dependencies(typeof(LogFlushAggregator).Assembly);
        string[] watched = [Aggregation, Metrics, Health];
        var among = edges.Where(e => watched.Contains(e.Key.From) && watched.Contains(e.Key.To)).ToList();

        // Health holds state only: it uses neither. Metrics reads the aggregation through an interface of its own.
        Assert.DoesNotContain(among, e => e.Key.From == Health);
        Assert.DoesNotContain(among, e => e.Key is (Metrics, Aggregation));
        var cycle = FindCycle(watched, among.Select(e => e.Key).ToList());
        Assert.True(cycle is null, $"namespace cycle {string.Join(" -> ", cycle ?? [])}; edges: {string.Join("; ", among.Select(e => $"{e.Key.From} -> {e.Key.To} (e.g. {e.Value})"))}");

        // The check sees what it claims to: the aggregation does use the metrics' catalog.
        Assert.Contains(among, e => e.Key is (Aggregation, Metrics));
    }

    /// <summary>Namespace edges within the assembly, each with one type that makes it.</summary>
    private static Dictionary<(string From, string To), string> Dependencies(Assembly assembly)
    {
        var edges = new Dictionary<(string, string), string>();
        foreach (var type in assembly.GetTypes())
        {
            var from = Outermost(type).Namespace;
            if (from is null)
            {
                continue;
            }

            foreach (var used in Used(type))
            {
                foreach (var ns in Namespaces(used))
                {
                    if (ns != from && ns.StartsWith("LogFlushMonitor.Core.", StringComparison.Ordinal))
                    {
                        edges.TryAdd((from, ns), type.FullName + " uses " + used.FullName);
                    }
                }
            }
        }

        return edges;
    }

    private static IEnumerable<Type> Used(Type type)
    {
        const BindingFlags all = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
        if (type.BaseType is { } b)
        {
            yield return b;
        }

        foreach (var i in type.GetInterfaces())
        {
            yield return i;
        }

        foreach (var f in type.GetFields(all))
        {
            yield return f.FieldType;
        }

        foreach (var m in type.GetMethods(all).Cast<MethodBase>().Concat(type.GetConstructors(all)))
        {
            if (m is MethodInfo mi)
            {
                yield return mi.ReturnType;
            }

            foreach (var p in m.GetParameters())
            {
                yield return p.ParameterType;
            }

            foreach (var t in BodyReferences(m))
            {
                yield return t;
            }
        }
    }

    /// <summary>The types whose members a method's IL touches (calls, fields, type tokens).</summary>
    private static IEnumerable<Type> BodyReferences(MethodBase method)
    {
        var il = method.GetMethodBody()?.GetILAsByteArray();
        if (il is null)
        {
            return [];
        }

        var found = new List<Type>();
        var typeArgs = method.DeclaringType is { IsGenericType: true } d ? d.GetGenericArguments() : null;
        var methodArgs = method.IsGenericMethod ? method.GetGenericArguments() : null;
        for (var i = 0; i < il.Length;)
        {
            var value = il[i] == 0xFE ? (short)(0xFE00 | il[i + 1]) : il[i];
            var op = OpCodesByValue[value];
            i += op.Size;
            switch (op.OperandType)
            {
                case OperandType.InlineField or OperandType.InlineMethod or OperandType.InlineType or OperandType.InlineTok:
                    try
                    {
                        var member = method.Module.ResolveMember(BitConverter.ToInt32(il, i), typeArgs, methodArgs);
                        if (member is Type t)
                        {
                            found.Add(t);
                        }
                        else if (member?.DeclaringType is { } owner)
                        {
                            found.Add(owner);
                            if (member is MethodInfo { IsGenericMethod: true } generic)
                            {
                                found.AddRange(generic.GetGenericArguments());
                            }
                        }
                    }
                    catch (ArgumentException)
                    {
                        // A token this context cannot resolve (an open generic in a shared body): it names nothing else.
                    }

                    i += 4;
                    break;
                case OperandType.InlineSwitch:
                    i += 4 + (4 * BitConverter.ToInt32(il, i));
                    break;
                case OperandType.InlineI8 or OperandType.InlineR:
                    i += 8;
                    break;
                case OperandType.InlineBrTarget or OperandType.InlineI or OperandType.InlineSig or OperandType.InlineString or OperandType.ShortInlineR:
                    i += 4;
                    break;
                case OperandType.InlineVar:
                    i += 2;
                    break;
                case OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar:
                    i += 1;
                    break;
            }
        }

        return found;
    }

    private static IEnumerable<string> Namespaces(Type type)
    {
        if (type.HasElementType)
        {
            foreach (var ns in Namespaces(type.GetElementType()!))
            {
                yield return ns;
            }

            yield break;
        }

        if (type.IsGenericParameter)
        {
            yield break;
        }

        if (Outermost(type).Namespace is { } own)
        {
            yield return own;
        }

        if (type.IsGenericType)
        {
            foreach (var arg in type.GetGenericArguments())
            {
                foreach (var ns in Namespaces(arg))
                {
                    yield return ns;
                }
            }
        }
    }

    private static Type Outermost(Type type)
    {
        while (type.DeclaringType is { } outer && !type.IsGenericParameter)
        {
            type = outer;
        }

        return type;
    }

    private static List<string>? FindCycle(string[] nodes, List<(string From, string To)> edges)
    {
        var state = nodes.ToDictionary(n => n, _ => 0); // 0 new, 1 on the path, 2 done
        var path = new List<string>();
        foreach (var n in nodes)
        {
            if (Visit(n) is { } cycle)
            {
                return cycle;
            }
        }

        return null;

        List<string>? Visit(string node)
        {
            if (state[node] == 1)
            {
                return [.. path.SkipWhile(p => p != node), node];
            }

            if (state[node] == 2)
            {
                return null;
            }

            state[node] = 1;
            path.Add(node);
            foreach (var (_, to) in edges.Where(e => e.From == node))
            {
                if (Visit(to) is { } cycle)
                {
                    return cycle;
                }
            }

            path.RemoveAt(path.Count - 1);
            state[node] = 2;
            return null;
        }
    }
}
