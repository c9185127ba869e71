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

{{/*
Address of a service's gRPC endpoint inside the cluster: its headless Service through the dns:
resolver, so a caller sees every ready pod and balances calls between them (round_robin); a
ClusterIP Service would pin each long-lived HTTP/2 connection to one pod.
*/}}
{{- define "imprint.grpcAddress" -}}
{{- $root := index . 0 -}}{{- $name := index . 1 -}}
{{- printf "dns:///%s-%s-headless:%v" (include "imprint.fullname" $root) $name (index $root.Values.services $name).grpcPort -}}
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

{{/*
Who calls whom over gRPC: the table "gRPC calls" of docs/architecture.md (validate-deploy compares
the two, and the NetworkPolicies with both). Callers are given only their upstreams' addresses.
*/}}
{{- define "imprint.grpcCalls" -}}
gateway: [identity, content, collaboration, publishing, integration]
reader: [content, publishing, integration]
identity: []
content: [identity]
collaboration: [identity, content]
publishing: [identity, content]
integration: [identity, content, publishing]
{{- end -}}

{{/* The enabled upstreams `target` calls over gRPC, as a list. */}}
{{- define "imprint.upstreams" -}}
{{- $root := index . 0 -}}{{- $target := index . 1 -}}
{{- $calls := include "imprint.grpcCalls" $root | fromYaml -}}
{{- $enabled := list -}}
{{- range (index $calls $target) -}}
{{- if (index $root.Values.services .).enabled -}}{{- $enabled = append $enabled . -}}{{- end -}}
{{- end -}}
{{- toJson $enabled -}}
{{- end -}}

{{/* A duration value ("30s", "15m", "12h", "7d", or plain milliseconds) in milliseconds. */}}
{{- define "imprint.durationMs" -}}
{{- $value := toString . -}}
{{- if regexMatch "^[0-9]+$" $value -}}{{- $value -}}
{{- else if regexMatch "^[0-9]+(s|m|h|d)$" $value -}}
{{- $number := regexFind "^[0-9]+" $value | int64 -}}
{{- $unit := regexFind "[smhd]$" $value -}}
{{- $factor := dict "s" 1000 "m" 60000 "h" 3600000 "d" 86400000 -}}
{{- mul $number (index $factor $unit) -}}
{{- else -}}
{{- fail (printf "%q is not a duration: use a number and s, m, h or d (e.g. 7d), or milliseconds" $value) -}}
{{- end -}}
{{- end -}}

{{/* Every pod's drain and shutdown settings (docs/operations.md § Graceful drain). */}}
{{- define "imprint.shutdownEnv" -}}
- name: SHUTDOWN_DRAIN_MS
  value: {{ mul .Values.drainSeconds 1000 | quote }}
- name: SHUTDOWN_GRACE_MS
  value: {{ mul .Values.shutdownGraceSeconds 1000 | quote }}
{{- end -}}

{{/*
Pod-level scheduling and termination of a target: spread over nodes and zones (ScheduleAnyway: a
small cluster still schedules), and a grace period covering the drain, the grace and a margin.
*/}}
{{- define "imprint.podAvailability" -}}
{{- $root := index . 0 -}}{{- $component := index . 1 -}}
terminationGracePeriodSeconds: {{ add $root.Values.drainSeconds $root.Values.shutdownGraceSeconds $root.Values.terminationMarginSeconds }}
topologySpreadConstraints:
  {{- range list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
  - maxSkew: 1
    topologyKey: {{ . }}
    whenUnsatisfiable: {{ $root.Values.topologySpread.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        app.kubernetes.io/instance: {{ $root.Release.Name }}
        app.kubernetes.io/component: {{ $component }}
    # Only the pods of one revision: a rolling update is spread on its own.
    matchLabelKeys: [pod-template-hash]
  {{- end }}
{{- end -}}

{{/*
The container's preStop: wait the drain period before Kubernetes sends SIGTERM, so endpoints and
callers' resolvers drop the pod while it still serves (the image has no shell: the kubelet's sleep
action, Kubernetes ≥ 1.30).
*/}}
{{- define "imprint.preStop" -}}
lifecycle:
  preStop:
    sleep:
      seconds: {{ .Values.drainSeconds }}
{{- end -}}

{{/*
"true" when target `name` (its values `values`) is scaled by a HorizontalPodAutoscaler: autoscaling
on, and the target able to run more than one pod (content on an emptyDir cannot).
*/}}
{{- define "imprint.autoscaled" -}}
{{- $root := index . 0 -}}{{- $values := index . 2 -}}
{{- $pinned := and $values.dataDir (not (include "imprint.sharedFiles" $values)) -}}
{{- if and $root.Values.autoscaling.enabled $values.autoscaling (not $pinned) -}}true{{- end -}}
{{- end -}}

{{/*
"true" when every replica of a target with a data directory sees the same files: a ReadWriteMany
volume (persistence.existingClaim), or content's files in an S3-compatible bucket (env FILE_STORE=s3).
*/}}
{{- define "imprint.sharedFiles" -}}
{{- if or (.persistence | default dict).existingClaim (eq (toString ((.env | default dict).FILE_STORE)) "s3") -}}true{{- end -}}
{{- end -}}

{{/* Egress to the cluster's DNS (networkPolicy.dns). */}}
{{- define "imprint.dnsEgress" -}}
- to:
    - namespaceSelector:
        matchLabels:
          {{- toYaml .Values.networkPolicy.dns.namespaceLabels | nindent 10 }}
      podSelector:
        matchLabels:
          {{- toYaml .Values.networkPolicy.dns.podLabels | nindent 10 }}
  ports:
    - { port: 53, protocol: UDP }
    - { port: 53, protocol: TCP }
{{- end -}}

{{/* NODE_OPTIONS of a component's pods (its nodeOptions value): V8's heap sized to its memory limit. */}}
{{- define "imprint.nodeOptions" -}}
{{- if . }}
- name: NODE_OPTIONS
  value: {{ . | quote }}
{{- end }}
{{- end -}}

{{- /* METRICS_TOKEN of every pod: the Secret's metrics-token when it has one (optional: /metrics asks for no token without it). */}}
{{- define "imprint.metricsTokenEnv" -}}
- name: METRICS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "imprint.secretName" . }}
      key: metrics-token
      optional: true
{{- end -}}
