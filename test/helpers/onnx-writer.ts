/**
 * Writes ONNX model files for tests and benchmarks: the subset of the ONNX protobuf schema
 * (onnx/onnx.proto, IR version 8) that a feed-forward graph with weight initializers needs,
 * encoded with protobufjs. Field numbers follow the published schema.
 */
import protobuf from 'protobufjs';

const SCHEMA = `
syntax = "proto3";
package onnx;
message AttributeProto {
  string name = 1; float f = 2; int64 i = 3; bytes s = 4; TensorProto t = 5;
  repeated float floats = 7; repeated int64 ints = 8; int32 type = 20;
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
  repeated AttributeProto attribute = 5; string domain = 7;
}
message ModelProto {
  int64 ir_version = 1; string producer_name = 2; string producer_version = 3;
  GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8;
}
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9; }
message TensorShapeProto {
  message Dimension { int64 dim_value = 1; string dim_param = 2; }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  Tensor tensor_type = 1;
}
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
`;

const root = protobuf.parse(SCHEMA).root;
const ModelProto = root.lookupType('onnx.ModelProto');

/** TensorProto.DataType values. */
export const FLOAT = 1;
export const INT64 = 7;
/** AttributeProto.AttributeType values. */
const ATTR = { FLOAT: 1, INT: 2, INTS: 7 } as const;

export type Dim = number | string;

export interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, number | number[] | { float: number }>;
}

export interface Initializer {
  name: string;
  dims: number[];
  /** float32 or int64 values, row-major. */
  data: Float32Array | BigInt64Array;
}

export interface GraphSpec {
  inputs: Array<{ name: string; type: number; shape: Dim[] }>;
  outputs: Array<{ name: string; type: number; shape: Dim[] }>;
  nodes: Node[];
  initializers: Initializer[];
  opset?: number;
}

const valueInfo = (v: { name: string; type: number; shape: Dim[] }) => ({
  name: v.name,
  type: {
    tensorType: {
      elemType: v.type,
      shape: { dim: v.shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
    },
  },
});

function attribute(name: string, v: number | number[] | { float: number }) {
  if (Array.isArray(v)) return { name, type: ATTR.INTS, ints: v };
  if (typeof v === 'object') return { name, type: ATTR.FLOAT, f: v.float };
  return { name, type: ATTR.INT, i: v };
}

export function encodeModel(g: GraphSpec): Uint8Array {
  let n = 0;
  const model = {
    irVersion: 8,
    producerName: 'verity-tests',
    producerVersion: '1',
    opsetImport: [{ domain: '', version: g.opset ?? 17 }],
    graph: {
      name: 'g',
      node: g.nodes.map((node) => ({
        name: `n${n++}`,
        opType: node.op,
        input: node.inputs,
        output: node.outputs,
        attribute: Object.entries(node.attrs ?? {}).map(([k, v]) => attribute(k, v)),
      })),
      initializer: g.initializers.map((t) => ({
        name: t.name,
        dims: t.dims,
        dataType: t.data instanceof Float32Array ? FLOAT : INT64,
        // ONNX raw_data is little-endian, as typed arrays are on every platform Node supports here.
        rawData: new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength),
      })),
      input: g.inputs.map(valueInfo),
      output: g.outputs.map(valueInfo),
    },
  };
  const err = ModelProto.verify(model);
  if (err) throw new Error(`onnx-writer: ${err}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

export const i64 = (values: number[]): BigInt64Array => BigInt64Array.from(values.map((v) => BigInt(v)));
