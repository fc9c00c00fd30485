// Every Dapper call of this assembly goes through Dapper.AOT's build-time generated code (docs/aot.md): the row types
// and parameters are read at compile time, so nothing is emitted at run time and the NativeAOT build works. A call
// Dapper.AOT cannot handle stays on vanilla Dapper (some cases are DAP warnings, so build errors here, but not all),
// and vanilla Dapper fails under NativeAOT: .ci/aot-smoke.sh runs check, every poller, the stream and the histogram
// in the native build. What the generator needs, and why the calls look as they do:
// - the SQL is a constant at the call (a ternary between two statements is two calls);
// - cancellation travels in the parameters: a bare CancellationToken, or a CancellationToken member of the anonymous
//   parameter object (Dapper.AOT 1.1.0 does not read CommandDefinition, DAP057);
// - row types are classes that are not private (it leaves value-tuple rows on vanilla Dapper: Sessions/XeCatalogRows.cs).
[module: Dapper.DapperAot]
