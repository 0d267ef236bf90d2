/**
 * A small OTLP/HTTP trace receiver for tests: `POST /v1/traces` with an
 * `ExportTraceServiceRequest` in protobuf, decoded by protobufjs against the message definitions
 * of opentelemetry-proto (opentelemetry/proto/{common,resource,trace}/v1, collector/trace/v1;
 * field numbers as published there). Answers 200 with an empty ExportTraceServiceResponse.
 */
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  repeated Event events = 11; uint32 dropped_events_count = 12; repeated Link links = 13; uint32 dropped_links_count = 14;
  Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; uint32 dropped_attributes_count = 5; fixed32 flags = 6; }
message Status { string message = 2; int32 code = 3; }
`;

const ExportTraceServiceRequest = protobuf.parse(OTLP_TRACE_PROTO).root.lookupType('otlp.ExportTraceServiceRequest');

export type AttrValue = string | number | boolean | AttrValue[] | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, AttrValue>;
  status: { code: number; message: string };
  resource: Record<string, AttrValue>;
  scope: string;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Content types of the exports received (the exporter must send protobuf). */
  readonly contentTypes: string[];
  waitFor(pred: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type Decoded = Record<string, unknown>;

function hex(b: unknown): string {
  return b instanceof Uint8Array ? Buffer.from(b).toString('hex') : '';
}

function anyValue(v: Decoded | undefined): AttrValue {
  if (!v) return null;
  if ('stringValue' in v) return v.stringValue as string;
  if ('boolValue' in v) return v.boolValue as boolean;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue as number;
  if ('arrayValue' in v) return (((v.arrayValue as Decoded).values as Decoded[] | undefined) ?? []).map(anyValue);
  return null;
}

function attrs(list: unknown): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const kv of (list as Decoded[] | undefined) ?? []) out[kv.key as string] = anyValue(kv.value as Decoded | undefined);
  return out;
}

function decode(body: Buffer): ReceivedSpan[] {
  const msg = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, bytes: Uint8Array, oneofs: false }) as Decoded;
  const out: ReceivedSpan[] = [];
  for (const rs of (msg.resourceSpans as Decoded[] | undefined) ?? []) {
    const resource = attrs((rs.resource as Decoded | undefined)?.attributes);
    for (const ss of (rs.scopeSpans as Decoded[] | undefined) ?? []) {
      const scope = ((ss.scope as Decoded | undefined)?.name as string | undefined) ?? '';
      for (const s of (ss.spans as Decoded[] | undefined) ?? []) {
        const status = (s.status as Decoded | undefined) ?? {};
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name as string,
          kind: (s.kind as number | undefined) ?? 0,
          startNs: BigInt((s.startTimeUnixNano as string | undefined) ?? '0'),
          endNs: BigInt((s.endTimeUnixNano as string | undefined) ?? '0'),
          attributes: attrs(s.attributes),
          status: { code: (status.code as number | undefined) ?? 0, message: (status.message as string | undefined) ?? '' },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(req.headers['content-type'] ?? '');
      try {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        spans.push(...decode(body));
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
      } catch (err) {
        res.writeHead(400, { 'Content-Type': 'text/plain' }).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    async waitFor(pred, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      while (!pred(spans)) {
        if (Date.now() > end) throw new Error(`OTLP receiver: condition not met; got ${spans.map((s) => s.name).join(', ') || 'no spans'}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return spans;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
