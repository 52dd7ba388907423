/*
 * The Cosmos DB for NoSQL query language, as far as docmirror reads it. The grammar also accepts some constructs
 * docmirror does not run (subqueries, EXISTS, ARRAY(...), user-defined functions), so that the query builder can
 * refuse them by name and position instead of reporting a bare syntax error. Keywords are case-insensitive,
 * identifiers are not.
 */
grammar NoSql;

options { caseInsensitive = true; }

query
    : selectQuery EOF
    ;

selectQuery
    : selectClause fromClause? whereClause? groupByClause? orderByClause? offsetLimitClause?
    ;

selectClause
    : SELECT DISTINCT? topClause? selection
    ;

topClause
    : TOP count
    ;

count
    : NUMBER
    | PARAMETER
    ;

selection
    : STAR                                  # selectStar
    | VALUE expression                      # selectValue
    | selectItem (',' selectItem)*          # selectList
    ;

selectItem
    : expression (AS? name)?
    ;

fromClause
    : FROM fromSource joinClause*
    ;

fromSource
    : name IN expression                    # fromIterator
    | containerPath (AS? name)?             # fromContainer
    | '(' selectQuery ')' (AS? name)?             # fromSubquery
    ;

containerPath
    : (ROOT | name) pathStep*
    ;

pathStep
    : '.' propertyName
    | '[' (STRING | NUMBER) ']'
    ;

joinClause
    : JOIN name IN expression               # joinIterator
    | JOIN '(' selectQuery ')' (AS? name)?        # joinSubquery
    ;

whereClause
    : WHERE expression
    ;

groupByClause
    : GROUP BY expression (',' expression)*
    ;

orderByClause
    : ORDER BY sortItem (',' sortItem)*
    ;

sortItem
    : expression direction=(ASC | DESC)?
    ;

offsetLimitClause
    : OFFSET count LIMIT count
    ;

expression
    : coalesce ('?' expression ':' expression)?
    ;

coalesce
    : disjunction ('??' disjunction)*
    ;

disjunction
    : conjunction (OR conjunction)*
    ;

conjunction
    : negation (AND negation)*
    ;

negation
    : NOT negation
    | predicate
    ;

predicate
    : concatenation (comparisonOperator concatenation)?                                 # comparison
    | concatenation NOT? IN '(' expression (',' expression)* ')'                        # inList
    | concatenation NOT? BETWEEN low=concatenation AND high=concatenation              # between
    | concatenation NOT? LIKE pattern=concatenation (ESCAPE escape=concatenation)?     # like
    ;

comparisonOperator
    : '=' | '!=' | '<>' | '<' | '<=' | '>' | '>='
    ;

concatenation
    : additive ('||' additive)*
    ;

additive
    : multiplicative (operator+=('+' | '-') multiplicative)*
    ;

multiplicative
    : unary (operator+=(STAR | '/' | '%') unary)*
    ;

unary
    : operator=('-' | '+') unary
    | postfix
    ;

postfix
    : primary postfixStep*
    ;

postfixStep
    : '.' propertyName
    | '[' expression ']'
    ;

primary
    : literal                                               # literalValue
    | PARAMETER                                             # parameter
    | name '(' arguments? ')'                               # functionCall
    | name '.' name '(' arguments? ')'                      # qualifiedFunctionCall
    | name                                                  # variable
    | ROOT                                                  # rootVariable
    | '[' arguments? ']'                                    # arrayLiteral
    | '{' (objectEntry (',' objectEntry)*)? '}'             # objectLiteral
    | '(' selectQuery ')'                                         # scalarSubquery
    | EXISTS '(' selectQuery ')'                                  # existsSubquery
    | ARRAY '(' selectQuery ')'                                   # arraySubquery
    | '(' expression ')'                                    # parenthesized
    ;

arguments
    : expression (',' expression)*
    ;

objectEntry
    : (STRING | propertyName) ':' expression
    ;

literal
    : NUMBER
    | STRING
    | TRUE
    | FALSE
    | NULL
    | UNDEFINED
    ;

name
    : IDENTIFIER
    ;

// After a dot any word names a property, keywords included (c.value, c.order).
propertyName
    : IDENTIFIER | SELECT | DISTINCT | TOP | VALUE | AS | FROM | IN | JOIN | WHERE | GROUP | BY | ORDER | ASC | DESC
    | OFFSET | LIMIT | AND | OR | NOT | BETWEEN | LIKE | ESCAPE | TRUE | FALSE | NULL | UNDEFINED | ROOT | EXISTS
    | ARRAY
    ;

SELECT: 'SELECT';
DISTINCT: 'DISTINCT';
TOP: 'TOP';
VALUE: 'VALUE';
AS: 'AS';
FROM: 'FROM';
IN: 'IN';
JOIN: 'JOIN';
WHERE: 'WHERE';
GROUP: 'GROUP';
BY: 'BY';
ORDER: 'ORDER';
ASC: 'ASC';
DESC: 'DESC';
OFFSET: 'OFFSET';
LIMIT: 'LIMIT';
AND: 'AND';
OR: 'OR';
NOT: 'NOT';
BETWEEN: 'BETWEEN';
LIKE: 'LIKE';
ESCAPE: 'ESCAPE';
TRUE: 'TRUE';
FALSE: 'FALSE';
NULL: 'NULL';
UNDEFINED: 'UNDEFINED';
ROOT: 'ROOT';
EXISTS: 'EXISTS';
ARRAY: 'ARRAY';
STAR: '*';

// A JSON number without its sign (a leading minus is the unary operator, folded back into the literal).
NUMBER
    : ('0' | [1-9] [0-9]*) ('.' [0-9]+)? ('E' [+-]? [0-9]+)?
    ;

STRING
    : '"' (ESCAPED | ~["\\\r\n])* '"'
    | '\'' (ESCAPED | ~['\\\r\n])* '\''
    ;

fragment ESCAPED
    : '\\' (["'\\/bfnrt] | 'U' HEX HEX HEX HEX)
    ;

fragment HEX
    : [0-9A-F]
    ;

PARAMETER
    : '@' [A-Z_] [A-Z_0-9]*
    ;

IDENTIFIER
    : [A-Z_$] [A-Z_0-9$]*
    ;

LINE_COMMENT
    : '--' ~[\r\n]* -> skip
    ;

WHITESPACE
    : [ \t\r\n]+ -> skip
    ;
