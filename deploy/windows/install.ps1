#Requires -RunAsAdministrator
<#
.SYNOPSIS
    Installs (or upgrades) LogFlushMonitor as a Windows service.

.DESCRIPTION
    Copies the published application to InstallDir, creates the service "LogFlushMonitor" running
    "logflushmonitor.exe run" under its virtual account NT SERVICE\LogFlushMonitor (no password, no
    rights beyond its own files), sets the recovery options (restart after a failure), registers the
    Event Log source, and prepares the configuration:

      <InstallDir>\appsettings.Production.json   the instances to watch (the executable reads
                                                 appsettings.{Environment}.json beside itself; an
                                                 upgrade never overwrites it)
      <DataDir>\secrets\<instance>.txt            one connection string per instance, read through
                                                 ConnectionStringFile; only Administrators, SYSTEM and
                                                 the service can read them
      <DataDir>\logs                              the optional log file (Log:File)

    Publish first:  dotnet publish src/LogFlushMonitor -c Release -r win-x64 -o .\publish
    Then, in an elevated PowerShell:  .\deploy\windows\install.ps1 -PublishDir .\publish
    Check the configuration as the service would see it:  & "$InstallDir\logflushmonitor.exe" check
    Remove:  .\deploy\windows\install.ps1 -Remove   (stops and deletes the service and InstallDir; keeps DataDir,
             which holds the secrets and logs, unless -RemoveData)

.PARAMETER PublishDir
    The folder dotnet publish wrote (it holds logflushmonitor.exe). Required unless -Remove.

.PARAMETER Remove
    Stop and delete the service and InstallDir instead of installing.

.PARAMETER RemoveData
    With -Remove, also delete DataDir (the connection-string files and the logs).

.PARAMETER InstallDir
    Where the application goes. Default: $env:ProgramFiles\LogFlushMonitor.

.PARAMETER DataDir
    Secrets and logs. Default: $env:ProgramData\LogFlushMonitor.

.PARAMETER ServiceName
    The service's name; its virtual account is NT SERVICE\<ServiceName>. Default: LogFlushMonitor.
#>
[CmdletBinding()]
param(
    [string] $PublishDir,
    [switch] $Remove,
    [switch] $RemoveData,
    [string] $InstallDir = (Join-Path $env:ProgramFiles 'LogFlushMonitor'),
    [string] $DataDir = (Join-Path $env:ProgramData 'LogFlushMonitor'),
    [string] $ServiceName = 'LogFlushMonitor'
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

function Invoke-Native {
    # Runs a native tool (sc.exe, icacls.exe) and stops on a non-zero exit code, which PowerShell would ignore.
    param([string] $FilePath, [string[]] $Arguments)
    & $FilePath @Arguments
    if ($LASTEXITCODE -ne 0) {
        throw "$FilePath $($Arguments -join ' ') failed with exit code $LASTEXITCODE."
    }
}

if ($Remove) {
    $existing = Get-Service -Name $ServiceName -ErrorAction SilentlyContinue
    if ($null -ne $existing) {
        if ($existing.Status -ne 'Stopped') {
            Stop-Service -Name $ServiceName
            $existing.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(30))
        }
        Invoke-Native 'sc.exe' @('delete', $ServiceName)
    }
    if (Test-Path -LiteralPath $InstallDir) { Remove-Item -LiteralPath $InstallDir -Recurse -Force }
    if ($RemoveData -and (Test-Path -LiteralPath $DataDir)) { Remove-Item -LiteralPath $DataDir -Recurse -Force }
    Write-Host "Removed $ServiceName$(if ($RemoveData) { ' and its data' } else { " (kept $DataDir)" })."
    return
}
if ([string]::IsNullOrEmpty($PublishDir)) {
    throw '-PublishDir is required: the folder dotnet publish wrote (or pass -Remove to uninstall).'
}

$exe = Join-Path $PublishDir 'logflushmonitor.exe'
if (-not (Test-Path -LiteralPath $exe -PathType Leaf)) {
    throw "$exe not found: pass the folder 'dotnet publish src/LogFlushMonitor -c Release -r win-x64 -o <folder>' wrote."
}
$account = "NT SERVICE\$ServiceName"

# An upgrade: stop the running service before its files are replaced.
$existing = Get-Service -Name $ServiceName -ErrorAction SilentlyContinue
if ($null -ne $existing -and $existing.Status -ne 'Stopped') {
    Stop-Service -Name $ServiceName
    $existing.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(30))
}

# The application. The operator's appsettings.Production.json is not part of the published files, so it stays.
New-Item -ItemType Directory -Force -Path $InstallDir | Out-Null
Copy-Item -Path (Join-Path $PublishDir '*') -Destination $InstallDir -Recurse -Force
$binary = Join-Path $InstallDir 'logflushmonitor.exe'

# The service (New-Service quotes the path; passing it to sc.exe would depend on the PowerShell version's quoting),
# then its virtual account and a start after the network with sc.exe. To move InstallDir, remove the service first.
if ($null -eq $existing) {
    New-Service -Name $ServiceName -BinaryPathName "`"$binary`" run" -DisplayName 'LogFlushMonitor' `
        -Description 'SQL Server log flush metrics (LogFlushMonitor)' -StartupType Automatic | Out-Null
}
Invoke-Native 'sc.exe' @('config', $ServiceName, 'obj=', $account, 'start=', 'delayed-auto')
# Recovery: restart after 10 s, 10 s, then 60 s; the count starts again after a day without failure. failureflag 1
# also counts a stop with a non-zero exit code as a failure (the host exits 1 on an unexpected error). Exit code 2
# (invalid configuration) restarts too: Windows cannot exempt an exit code, the Event Log says what is wrong.
Invoke-Native 'sc.exe' @('failure', $ServiceName, 'reset=', '86400', 'actions=', 'restart/10000/restart/10000/restart/60000')
Invoke-Native 'sc.exe' @('failureflag', $ServiceName, '1')

# The Event Log source the service writes its warnings and errors under (MonitorHost.EventLogSource: always
# 'LogFlushMonitor', whatever the service's name); creating it needs administrator rights, which the service lacks.
$eventSource = 'LogFlushMonitor'
if (-not [System.Diagnostics.EventLog]::SourceExists($eventSource)) {
    [System.Diagnostics.EventLog]::CreateEventSource($eventSource, 'Application')
}

# Secrets and logs: readable by Administrators, SYSTEM and the service only (the service's SID exists from here on).
$secrets = Join-Path $DataDir 'secrets'
$logs = Join-Path $DataDir 'logs'
New-Item -ItemType Directory -Force -Path $secrets, $logs | Out-Null
Invoke-Native 'icacls.exe' @($DataDir, '/inheritance:r', '/grant:r', '*S-1-5-32-544:(OI)(CI)F', '*S-1-5-18:(OI)(CI)F', "${account}:(OI)(CI)RX")
Invoke-Native 'icacls.exe' @($logs, '/grant', "${account}:(OI)(CI)M")

# The configuration: written once, never overwritten.
$config = Join-Path $InstallDir 'appsettings.Production.json'
if (-not (Test-Path -LiteralPath $config)) {
    $settings = [ordered]@{
        Sources = [ordered]@{
            SqlServer = [ordered]@{
                Instances = @(
                    [ordered]@{ Name = 'sql1'; ConnectionStringFile = (Join-Path $secrets 'sql1.txt') }
                )
            }
        }
        Log     = [ordered]@{ File = (Join-Path $logs 'logflushmonitor-.log') }
    }
    $settings | ConvertTo-Json -Depth 6 | Set-Content -LiteralPath $config -Encoding UTF8
}

Write-Host "Installed $ServiceName as $account."
Write-Host "1. Name the instances in $config."
Write-Host "2. Put each connection string in $secrets\<instance>.txt (the login from 'logflushmonitor setup-sql')."
Write-Host "3. Check: & `"$binary`" check   4. Start: Start-Service $ServiceName"
