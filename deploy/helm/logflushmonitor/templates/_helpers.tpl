{{/* The chart's name, or nameOverride. */}}
{{- define "logflushmonitor.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The objects' name: fullnameOverride, else the release's name when it already holds the chart's name, else
<release>-<name>. StatefulSet pods append "-<ordinal>", so it is cut to 52 characters.
*/}}
{{- define "logflushmonitor.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "logflushmonitor.selectorLabels" -}}
app.kubernetes.io/name: {{ include "logflushmonitor.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "logflushmonitor.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "logflushmonitor.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The image reference: repository@digest when a digest is given, else repository:tag (tag defaults to appVersion). */}}
{{- define "logflushmonitor.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
appsettings.json: `config`, with Sources:SqlServer:Instances built from `instances` (each reading its connection
string from its file of the mounted Secret). Fails, naming the value, on what the schema cannot check: duplicate
instance names (the service compares them without case), a Secret key Kubernetes would refuse, and settings the
chart owns.
*/}}
{{- define "logflushmonitor.appsettings" -}}
{{- $config := deepCopy .Values.config }}
{{- $sources := default dict (get $config "Sources") }}
{{- $sqlserver := default dict (get $sources "SqlServer") }}
{{- if hasKey $sqlserver "Instances" }}
{{- fail "config.Sources.SqlServer.Instances is set: list the instances in `instances` instead (each with its name and, optionally, secretKey and settings)" }}
{{- end }}
{{- if hasKey $sqlserver "Shard" }}
{{- fail "config.Sources.SqlServer.Shard is set: the chart gives each pod its shard; set `shards` (the number of pods) instead" }}
{{- end }}
{{- $http := default dict (get $config "Http") }}
{{- if hasKey $http "Urls" }}
{{- fail "config.Http.Urls is set: the pod listens on service.port; change that instead" }}
{{- end }}
{{- $log := default dict (get $config "Log") }}
{{- if hasKey $log "Format" }}
{{- fail "config.Log.Format is set: the pod logs JSON to stderr for the cluster's log collector; remove it" }}
{{- end }}
{{- $seen := dict }}
{{- $list := list }}
{{- range $i, $instance := .Values.instances }}
{{- $lower := lower $instance.name }}
{{- if hasKey $seen $lower }}
{{- fail (printf "instances[%d].name %q is already used by instances[%d]: instance names must be unique (compared without case)" $i $instance.name (get $seen $lower)) }}
{{- end }}
{{- $_ := set $seen $lower $i }}
{{- $key := default $instance.name $instance.secretKey }}
{{- if not (regexMatch "^[-._a-zA-Z0-9]+$" $key) }}
{{- fail (printf "instances[%d]: the Secret key %q is not one Kubernetes accepts (letters, digits, '-', '_', '.'): set instances[%d].secretKey to the key that holds this instance's connection string" $i $key $i) }}
{{- end }}
{{- $settings := deepCopy (default dict $instance.settings) }}
{{- range $owned := list "Name" "ConnectionString" "ConnectionStringEnvironmentVariable" "ConnectionStringFile" }}
{{- if hasKey $settings $owned }}
{{- fail (printf "instances[%d].settings.%s is set: the chart sets the name from instances[%d].name and reads the connection string from the Secret's file; remove it" $i $owned $i) }}
{{- end }}
{{- end }}
{{- $_ := set $settings "Name" $instance.name }}
{{- $_ := set $settings "ConnectionStringFile" (printf "%s/%s" (trimSuffix "/" $.Values.connections.mountPath) $key) }}
{{- $list = append $list $settings }}
{{- end }}
{{- $_ := set $sqlserver "Instances" $list }}
{{- $_ := set $sources "SqlServer" $sqlserver }}
{{- $_ := set $config "Sources" $sources }}
{{- toPrettyJson $config }}
{{- end }}
