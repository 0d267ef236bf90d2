/**
 * The shapes of @huggingface/jinja 0.5.11's parsed tree (`new Template(src).parsed`), which the
 * package does not export. Only the fields the compiler reads are listed; anything else is
 * refused by node `type`.
 */

export interface OperatorToken {
  readonly value: string;
  readonly type: string;
}

export interface Identifier {
  readonly type: 'Identifier';
  readonly value: string;
}
export interface IntegerLiteral {
  readonly type: 'IntegerLiteral';
  readonly value: number;
}
export interface FloatLiteral {
  readonly type: 'FloatLiteral';
  readonly value: number;
}
export interface StringLiteral {
  readonly type: 'StringLiteral';
  readonly value: string;
}
export interface ArrayLiteral {
  readonly type: 'ArrayLiteral';
  readonly value: readonly Expression[];
}
export interface TupleLiteral {
  readonly type: 'TupleLiteral';
  readonly value: readonly Expression[];
}
export interface ObjectLiteral {
  readonly type: 'ObjectLiteral';
  readonly value: ReadonlyMap<Expression, Expression>;
}
export interface MemberExpression {
  readonly type: 'MemberExpression';
  readonly object: Expression;
  readonly property: Expression;
  readonly computed: boolean;
}
export interface CallExpression {
  readonly type: 'CallExpression';
  readonly callee: Expression;
  readonly args: readonly Expression[];
}
export interface BinaryExpression {
  readonly type: 'BinaryExpression';
  readonly operator: OperatorToken;
  readonly left: Expression;
  readonly right: Expression;
}
export interface UnaryExpression {
  readonly type: 'UnaryExpression';
  readonly operator: OperatorToken;
  readonly argument: Expression;
}
export interface FilterExpression {
  readonly type: 'FilterExpression';
  readonly operand: Expression;
  readonly filter: Expression;
}
export interface TestExpression {
  readonly type: 'TestExpression';
  readonly operand: Expression;
  readonly negate: boolean;
  readonly test: Identifier;
}
export interface SelectExpression {
  readonly type: 'SelectExpression';
  readonly lhs: Expression;
  readonly test: Expression;
}
export interface Ternary {
  readonly type: 'Ternary';
  readonly condition: Expression;
  readonly trueExpr: Expression;
  readonly falseExpr: Expression;
}
export interface SliceExpression {
  readonly type: 'SliceExpression';
  readonly start?: Expression;
  readonly stop?: Expression;
  readonly step?: Expression;
}
export interface KeywordArgumentExpression {
  readonly type: 'KeywordArgumentExpression';
  readonly key: Identifier;
  readonly value: Expression;
}
/** Argument unpacking and the rest are refused; only their type is read. */
export interface OtherExpression {
  readonly type: 'SpreadExpression' | 'KeywordSpreadExpression';
}

export type Expression =
  | Identifier
  | IntegerLiteral
  | FloatLiteral
  | StringLiteral
  | ArrayLiteral
  | TupleLiteral
  | ObjectLiteral
  | MemberExpression
  | CallExpression
  | BinaryExpression
  | UnaryExpression
  | FilterExpression
  | TestExpression
  | SelectExpression
  | Ternary
  | SliceExpression
  | KeywordArgumentExpression
  | OtherExpression;

export interface Program {
  readonly type: 'Program';
  readonly body: readonly Statement[];
}
export interface If {
  readonly type: 'If';
  readonly test: Expression;
  readonly body: readonly Statement[];
  readonly alternate: readonly Statement[];
}
export interface For {
  readonly type: 'For';
  readonly loopvar: Identifier | TupleLiteral;
  readonly iterable: Expression;
  readonly body: readonly Statement[];
  readonly defaultBlock: readonly Statement[];
}
export interface SetStatement {
  readonly type: 'Set';
  readonly assignee: Expression;
  readonly value: Expression | null;
  readonly body: readonly Statement[];
}
export interface FilterStatement {
  readonly type: 'FilterStatement';
  readonly filter: Expression;
  readonly body: readonly Statement[];
}
export interface Simple {
  readonly type: 'Break' | 'Continue' | 'Comment';
}
export interface Macro {
  readonly type: 'Macro';
  readonly name: Identifier;
  /** Parameters: names, or `name=default`. */
  readonly args: readonly Expression[];
  readonly body: readonly Statement[];
}
/** Call blocks are refused (no template the gateway ships uses them). */
export interface Unsupported {
  readonly type: 'CallStatement';
}

export type Statement = If | For | SetStatement | FilterStatement | Macro | Simple | Unsupported | Expression;
