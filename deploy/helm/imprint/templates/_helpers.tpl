{{- define "imprint.name" -}}imprint{{- end -}}

{{- define "imprint.fullname" -}}
{{- printf "%s-%s" .Release.Name "imprint" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "imprint.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "imprint.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "imprint.fullname" .)) -}}
{{- end -}}

{{- define "imprint.labels" -}}
app.kubernetes.io/name: {{ include "imprint.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Address of a service's gRPC endpoint inside the cluster. */}}
{{- define "imprint.grpcAddress" -}}
{{- $root := index . 0 -}}{{- $name := index . 1 -}}
{{- printf "%s-%s:%v" (include "imprint.fullname" $root) $name (index $root.Values.services $name).grpcPort -}}
{{- end -}}

{{/*
Secret the migration Jobs read DATABASE_URL from. When the chart manages secrets this is a hook
Secret rendered next to the Jobs: the release's own Secret does not exist yet at pre-install and
still holds the previous values at pre-upgrade.
*/}}
{{- define "imprint.migrationSecretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-migrations" (include "imprint.fullname" .)) -}}
{{- end -}}

{{/* Host of gateway.publicUrl, without a port (an Ingress host has none). */}}
{{- define "imprint.publicHost" -}}
{{- regexReplaceAll ":[0-9]+$" (urlParse .Values.gateway.publicUrl).host "" -}}
{{- end -}}

{{/*
Where readers reach published sites (IMPRINT_READER_URL of the reader and the gateway, which builds
every `urls.published` on it): reader.publicUrl, else /sites under the API's URL.
*/}}
{{- define "imprint.readerUrl" -}}
{{- $url := .Values.reader.publicUrl | default (printf "%s/sites" (trimSuffix "/" .Values.gateway.publicUrl)) -}}
{{- trimSuffix "/" $url -}}
{{- end -}}

{{/* Host of the reader's URL, without a port. */}}
{{- define "imprint.readerHost" -}}
{{- regexReplaceAll ":[0-9]+$" (urlParse (include "imprint.readerUrl" .)).host "" -}}
{{- end -}}

{{/* Path of the reader's URL ("/" when it has none). */}}
{{- define "imprint.readerPath" -}}
{{- (urlParse (include "imprint.readerUrl" .)).path | default "/" -}}
{{- end -}}

{{/* Volumes every pod gets: the root filesystem is read-only, so /tmp is an emptyDir. */}}
{{- define "imprint.tmpVolume" -}}
- name: tmp
  emptyDir: {}
{{- end -}}
