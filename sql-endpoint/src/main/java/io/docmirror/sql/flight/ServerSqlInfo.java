package io.docmirror.sql.flight;

import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import io.docmirror.sql.flight.SqlInfoValue.Flag;
import io.docmirror.sql.flight.SqlInfoValue.Int32;
import io.docmirror.sql.flight.SqlInfoValue.IntListMap;
import io.docmirror.sql.flight.SqlInfoValue.Number;
import io.docmirror.sql.flight.SqlInfoValue.Text;
import io.docmirror.sql.flight.SqlInfoValue.Texts;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlNullOrdering;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlOuterJoinsSupportLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedCaseSensitivity;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedGroupBy;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedResultSetConcurrency;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedResultSetType;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedSubqueries;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedUnions;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlTransactionIsolationLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SupportedAnsi92SqlGrammarLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SupportedSqlGrammar;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static java.util.Map.entry;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_BIGINT;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_BINARY;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_BIT;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_CHAR;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_DATE;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_DECIMAL;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_FLOAT;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_INTEGER;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_INTERVAL_DAY_TIME;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_INTERVAL_YEAR_MONTH;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_LONGVARBINARY;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_LONGVARCHAR;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_NUMERIC;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_REAL;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_SMALLINT;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_TIME;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_TIMESTAMP;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_TINYINT;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_VARBINARY;
import static org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert.SQL_CONVERT_VARCHAR;

/**
 * The endpoint's answer to every {@code SqlInfo} id of the Flight SQL spec (FlightSql.proto of the Arrow version
 * the endpoint is built with): what DuckDB does, behind an endpoint that is read-only (nothing can be defined,
 * nothing written, no transactions) and runs each query on its own on one committed version of the mirror.
 * Keywords and function names are DuckDB's own, read from it. A client that asks for ids this list does not have
 * (a newer spec's, or the Substrait versions, null here) gets the ones it has: unknown ids are left out.
 */
final class ServerSqlInfo {
    /**
     * The Open Group CLI function names that JDBC's {@code getNumericFunctions} and the like list; each list is
     * narrowed to the names DuckDB has.
     */
    private static final List<String> NUMERIC_FUNCTIONS = List.of("ABS", "ACOS", "ASIN", "ATAN", "ATAN2", "CEILING",
            "COS", "COT", "DEGREES", "EXP", "FLOOR", "LOG", "LOG10", "MOD", "PI", "POWER", "RADIANS", "RAND",
            "ROUND", "SIGN", "SIN", "SQRT", "TAN", "TRUNCATE");
    private static final List<String> STRING_FUNCTIONS = List.of("ASCII", "CHAR", "CONCAT", "DIFFERENCE", "INSERT",
            "LCASE", "LEFT", "LENGTH", "LOCATE", "LTRIM", "REPEAT", "REPLACE", "RIGHT", "RTRIM", "SOUNDEX", "SPACE",
            "SUBSTRING", "UCASE", "LOWER", "UPPER", "TRIM", "POSITION", "STRPOS", "REVERSE", "LPAD", "RPAD");
    private static final List<String> SYSTEM_FUNCTIONS = List.of("DATABASE", "IFNULL", "USER", "COALESCE",
            "NULLIF", "CURRENT_DATABASE", "CURRENT_SCHEMA", "VERSION");
    private static final List<String> DATETIME_FUNCTIONS = List.of("CURDATE", "CURTIME", "DAYNAME", "DAYOFMONTH",
            "DAYOFWEEK", "DAYOFYEAR", "HOUR", "MINUTE", "MONTH", "MONTHNAME", "NOW", "QUARTER", "SECOND",
            "TIMESTAMPADD", "TIMESTAMPDIFF", "WEEK", "YEAR", "DATE_PART", "DATE_TRUNC", "DATE_DIFF", "DATE_ADD",
            "STRFTIME", "STRPTIME", "EPOCH", "MAKE_DATE", "MAKE_TIMESTAMP", "TODAY");

    private final Map<Integer, SqlInfoValue> answers;

    private ServerSqlInfo(Map<Integer, SqlInfoValue> answers) {
        this.answers = Collections.unmodifiableMap(answers);
    }

    /**
     * The answers for {@code endpoint}: the statement timeout and the column limit are its {@link SqlConfig}'s,
     * keywords and functions DuckDB's.
     */
    static ServerSqlInfo of(SqlEndpoint endpoint, String serverVersion, String arrowVersion) throws SQLException {
        SqlConfig config = endpoint.config();
        List<String> keywords;
        Set<String> functions = new HashSet<>();
        try (Connection connection = endpoint.connect(); Statement statement = connection.createStatement()) {
            keywords = strings(statement, "SELECT upper(keyword_name) FROM duckdb_keywords() ORDER BY 1");
            functions.addAll(strings(statement, "SELECT DISTINCT upper(function_name) FROM duckdb_functions()"));
        }
        Map<Integer, SqlInfoValue> answers = new TreeMap<>();
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_NAME, new Text("docmirror"));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_VERSION, new Text(serverVersion));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_ARROW_VERSION, new Text(arrowVersion));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY, new Flag(true));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_SQL, new Flag(true));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_SUBSTRAIT, new Flag(false));
        // FLIGHT_SQL_SERVER_SUBSTRAIT_MIN_VERSION and _MAX_VERSION are null without Substrait, says the spec, and
        // the schema's string_value cannot hold a null: they are left out, as a value the server does not have.
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION,
                new Int32(SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE_VALUE));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_CANCEL, new Flag(false));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION, new Flag(false));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED, new Flag(false));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT,
                new Int32((int) Math.min(Integer.MAX_VALUE, config.queryTimeout().toMillis())));
        answer(answers, SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION_TIMEOUT, new Int32(0));

        // Nothing can be defined through the endpoint: no catalog, schema or table DDL.
        answer(answers, SqlInfo.SQL_DDL_CATALOG, new Flag(false));
        answer(answers, SqlInfo.SQL_DDL_SCHEMA, new Flag(false));
        answer(answers, SqlInfo.SQL_DDL_TABLE, new Flag(false));
        // DuckDB matches identifiers ignoring case, quoted or not, and keeps them as they were written (mixed case).
        answer(answers, SqlInfo.SQL_IDENTIFIER_CASE,
                new Int32(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE_VALUE));
        answer(answers, SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR, new Text("\""));
        answer(answers, SqlInfo.SQL_QUOTED_IDENTIFIER_CASE,
                new Int32(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE_VALUE));
        answer(answers, SqlInfo.SQL_ALL_TABLES_ARE_SELECTABLE, new Flag(true));
        // DuckDB sorts NULLs last, ascending and descending alike.
        answer(answers, SqlInfo.SQL_NULL_ORDERING, new Int32(SqlNullOrdering.SQL_NULLS_SORTED_AT_END_VALUE));
        answer(answers, SqlInfo.SQL_KEYWORDS, new Texts(keywords));
        answer(answers, SqlInfo.SQL_NUMERIC_FUNCTIONS, new Texts(present(NUMERIC_FUNCTIONS, functions)));
        answer(answers, SqlInfo.SQL_STRING_FUNCTIONS, new Texts(present(STRING_FUNCTIONS, functions)));
        answer(answers, SqlInfo.SQL_SYSTEM_FUNCTIONS, new Texts(present(SYSTEM_FUNCTIONS, functions)));
        answer(answers, SqlInfo.SQL_DATETIME_FUNCTIONS, new Texts(present(DATETIME_FUNCTIONS, functions)));
        // The escape of the metadata commands' name patterns (CatalogMetadata: LIKE ... ESCAPE '\').
        answer(answers, SqlInfo.SQL_SEARCH_STRING_ESCAPE, new Text("\\"));
        answer(answers, SqlInfo.SQL_EXTRA_NAME_CHARACTERS, new Text(""));
        answer(answers, SqlInfo.SQL_SUPPORTS_COLUMN_ALIASING, new Flag(true));
        answer(answers, SqlInfo.SQL_NULL_PLUS_NULL_IS_NULL, new Flag(true));
        answer(answers, SqlInfo.SQL_SUPPORTS_CONVERT, new IntListMap(conversions()));
        answer(answers, SqlInfo.SQL_SUPPORTS_TABLE_CORRELATION_NAMES, new Flag(true));
        // DuckDB lets an alias repeat its table's name.
        answer(answers, SqlInfo.SQL_SUPPORTS_DIFFERENT_TABLE_CORRELATION_NAMES, new Flag(false));
        answer(answers, SqlInfo.SQL_SUPPORTS_EXPRESSIONS_IN_ORDER_BY, new Flag(true));
        answer(answers, SqlInfo.SQL_SUPPORTS_ORDER_BY_UNRELATED, new Flag(true));
        answer(answers, SqlInfo.SQL_SUPPORTED_GROUP_BY, Int32.bitmask(SqlSupportedGroupBy.SQL_GROUP_BY_UNRELATED,
                SqlSupportedGroupBy.SQL_GROUP_BY_BEYOND_SELECT));
        answer(answers, SqlInfo.SQL_SUPPORTS_LIKE_ESCAPE_CLAUSE, new Flag(true));
        answer(answers, SqlInfo.SQL_SUPPORTS_NON_NULLABLE_COLUMNS, new Flag(false));
        answer(answers, SqlInfo.SQL_SUPPORTED_GRAMMAR, Int32.bitmask(SupportedSqlGrammar.SQL_MINIMUM_GRAMMAR,
                SupportedSqlGrammar.SQL_CORE_GRAMMAR));
        answer(answers, SqlInfo.SQL_ANSI92_SUPPORTED_LEVEL, Int32.bitmask(
                SupportedAnsi92SqlGrammarLevel.ANSI92_ENTRY_SQL, SupportedAnsi92SqlGrammarLevel.ANSI92_INTERMEDIATE_SQL));
        answer(answers, SqlInfo.SQL_SUPPORTS_INTEGRITY_ENHANCEMENT_FACILITY, new Flag(false));
        answer(answers, SqlInfo.SQL_OUTER_JOINS_SUPPORT_LEVEL, Int32.bitmask(
                SqlOuterJoinsSupportLevel.SQL_LIMITED_OUTER_JOINS, SqlOuterJoinsSupportLevel.SQL_FULL_OUTER_JOINS));
        answer(answers, SqlInfo.SQL_SCHEMA_TERM, new Text("schema"));
        answer(answers, SqlInfo.SQL_PROCEDURE_TERM, new Text("procedure"));
        answer(answers, SqlInfo.SQL_CATALOG_TERM, new Text("database"));
        answer(answers, SqlInfo.SQL_CATALOG_AT_START, new Flag(true));
        // Schema and catalog names serve in none of the spec's contexts: no procedures, indexes or privileges.
        answer(answers, SqlInfo.SQL_SCHEMAS_SUPPORTED_ACTIONS, Int32.bitmask());
        answer(answers, SqlInfo.SQL_CATALOGS_SUPPORTED_ACTIONS, Int32.bitmask());
        answer(answers, SqlInfo.SQL_SUPPORTED_POSITIONED_COMMANDS, Int32.bitmask());
        answer(answers, SqlInfo.SQL_SELECT_FOR_UPDATE_SUPPORTED, new Flag(false));
        answer(answers, SqlInfo.SQL_STORED_PROCEDURES_SUPPORTED, new Flag(false));
        answer(answers, SqlInfo.SQL_SUPPORTED_SUBQUERIES, Int32.bitmask(
                SqlSupportedSubqueries.SQL_SUBQUERIES_IN_COMPARISONS, SqlSupportedSubqueries.SQL_SUBQUERIES_IN_EXISTS,
                SqlSupportedSubqueries.SQL_SUBQUERIES_IN_INS, SqlSupportedSubqueries.SQL_SUBQUERIES_IN_QUANTIFIEDS));
        answer(answers, SqlInfo.SQL_CORRELATED_SUBQUERIES_SUPPORTED, new Flag(true));
        answer(answers, SqlInfo.SQL_SUPPORTED_UNIONS, Int32.bitmask(SqlSupportedUnions.SQL_UNION,
                SqlSupportedUnions.SQL_UNION_ALL));
        // DuckDB sets no limit on these (0: no limit or unknown), but for the columns of a result: sql.column-limit.
        for (SqlInfo unlimited : List.of(SqlInfo.SQL_MAX_BINARY_LITERAL_LENGTH, SqlInfo.SQL_MAX_CHAR_LITERAL_LENGTH,
                SqlInfo.SQL_MAX_COLUMN_NAME_LENGTH, SqlInfo.SQL_MAX_COLUMNS_IN_GROUP_BY,
                SqlInfo.SQL_MAX_COLUMNS_IN_INDEX, SqlInfo.SQL_MAX_COLUMNS_IN_ORDER_BY,
                SqlInfo.SQL_MAX_COLUMNS_IN_TABLE, SqlInfo.SQL_MAX_CONNECTIONS, SqlInfo.SQL_MAX_CURSOR_NAME_LENGTH,
                SqlInfo.SQL_MAX_INDEX_LENGTH, SqlInfo.SQL_DB_SCHEMA_NAME_LENGTH, SqlInfo.SQL_MAX_PROCEDURE_NAME_LENGTH,
                SqlInfo.SQL_MAX_CATALOG_NAME_LENGTH, SqlInfo.SQL_MAX_ROW_SIZE, SqlInfo.SQL_MAX_STATEMENT_LENGTH,
                SqlInfo.SQL_MAX_STATEMENTS, SqlInfo.SQL_MAX_TABLE_NAME_LENGTH, SqlInfo.SQL_MAX_TABLES_IN_SELECT,
                SqlInfo.SQL_MAX_USERNAME_LENGTH)) {
            answer(answers, unlimited, new Number(0));
        }
        answer(answers, SqlInfo.SQL_MAX_COLUMNS_IN_SELECT, new Number(config.columnLimit()));
        answer(answers, SqlInfo.SQL_MAX_ROW_SIZE_INCLUDES_BLOBS, new Flag(false));
        // No transactions: every query is on its own, on one committed version of the mirror.
        answer(answers, SqlInfo.SQL_DEFAULT_TRANSACTION_ISOLATION,
                new Number(SqlTransactionIsolationLevel.SQL_TRANSACTION_NONE_VALUE));
        answer(answers, SqlInfo.SQL_TRANSACTIONS_SUPPORTED, new Flag(false));
        answer(answers, SqlInfo.SQL_SUPPORTED_TRANSACTIONS_ISOLATION_LEVELS,
                Int32.bitmask(SqlTransactionIsolationLevel.SQL_TRANSACTION_NONE));
        answer(answers, SqlInfo.SQL_DATA_DEFINITION_CAUSES_TRANSACTION_COMMIT, new Flag(false));
        answer(answers, SqlInfo.SQL_DATA_DEFINITIONS_IN_TRANSACTIONS_IGNORED, new Flag(false));
        answer(answers, SqlInfo.SQL_SUPPORTED_RESULT_SET_TYPES,
                Int32.bitmask(SqlSupportedResultSetType.SQL_RESULT_SET_TYPE_FORWARD_ONLY));
        Int32 readOnly = Int32.bitmask(SqlSupportedResultSetConcurrency.SQL_RESULT_SET_CONCURRENCY_READ_ONLY);
        answer(answers, SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_UNSPECIFIED, readOnly);
        answer(answers, SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_FORWARD_ONLY, readOnly);
        // Results are forward-only: no concurrency of the scrollable kinds.
        answer(answers, SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_SENSITIVE, Int32.bitmask());
        answer(answers, SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_INSENSITIVE, Int32.bitmask());
        answer(answers, SqlInfo.SQL_BATCH_UPDATES_SUPPORTED, new Flag(false));
        answer(answers, SqlInfo.SQL_SAVEPOINTS_SUPPORTED, new Flag(false));
        // Parameters are bound by position only.
        answer(answers, SqlInfo.SQL_NAMED_PARAMETERS_SUPPORTED, new Flag(false));
        answer(answers, SqlInfo.SQL_LOCATORS_UPDATE_COPY, new Flag(false));
        answer(answers, SqlInfo.SQL_STORED_FUNCTIONS_USING_CALL_SYNTAX_SUPPORTED, new Flag(false));
        return new ServerSqlInfo(answers);
    }

    /** The answers to {@code ids} (every answer when empty), in the order asked; ids not known are left out. */
    List<Map.Entry<Integer, SqlInfoValue>> answers(List<Integer> ids) {
        List<Map.Entry<Integer, SqlInfoValue>> selected = new ArrayList<>();
        if (ids.isEmpty()) {
            answers.forEach((id, value) -> selected.add(entry(id, value)));
            return selected;
        }
        for (int id : ids) {
            SqlInfoValue value = answers.get(id);
            if (value != null) {
                selected.add(entry(id, value));
            }
        }
        return selected;
    }

    private static void answer(Map<Integer, SqlInfoValue> answers, SqlInfo id, SqlInfoValue value) {
        answers.put(id.getNumber(), value);
    }

    private static List<String> strings(Statement statement, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (ResultSet result = statement.executeQuery(sql)) {
            while (result.next()) {
                values.add(result.getString(1));
            }
        }
        return values;
    }

    private static List<String> present(List<String> names, Set<String> duckdbFunctions) {
        return names.stream().filter(name -> duckdbFunctions.contains(name.toUpperCase(Locale.ROOT))).toList();
    }

    /**
     * Which of the spec's types DuckDB casts to which (its cast rules, for the DuckDB type each stands for):
     * numbers and BOOLEAN among each other; everything to and from text; DATE and TIMESTAMP to each other, and
     * TIMESTAMP to TIME; binary to binary and to text; intervals to and from text.
     */
    private static Map<Integer, List<Integer>> conversions() {
        Set<SqlSupportsConvert> numbers = EnumSet.of(SQL_CONVERT_BIGINT, SQL_CONVERT_BIT, SQL_CONVERT_DECIMAL,
                SQL_CONVERT_FLOAT, SQL_CONVERT_INTEGER, SQL_CONVERT_NUMERIC, SQL_CONVERT_REAL, SQL_CONVERT_SMALLINT,
                SQL_CONVERT_TINYINT);
        Set<SqlSupportsConvert> text = EnumSet.of(SQL_CONVERT_CHAR, SQL_CONVERT_VARCHAR, SQL_CONVERT_LONGVARCHAR);
        Set<SqlSupportsConvert> binary = EnumSet.of(SQL_CONVERT_BINARY, SQL_CONVERT_VARBINARY,
                SQL_CONVERT_LONGVARBINARY);
        Set<SqlSupportsConvert> intervals = EnumSet.of(SQL_CONVERT_INTERVAL_DAY_TIME,
                SQL_CONVERT_INTERVAL_YEAR_MONTH);
        Set<SqlSupportsConvert> all = EnumSet.noneOf(SqlSupportsConvert.class);
        Arrays.stream(SqlSupportsConvert.values()).filter(value -> value != SqlSupportsConvert.UNRECOGNIZED)
                .forEach(all::add);
        Map<SqlSupportsConvert, Set<SqlSupportsConvert>> casts = new EnumMap<>(SqlSupportsConvert.class);
        numbers.forEach(from -> casts.put(from, union(numbers, text)));
        text.forEach(from -> casts.put(from, all));
        binary.forEach(from -> casts.put(from, union(binary, text)));
        intervals.forEach(from -> casts.put(from, union(intervals, text)));
        casts.put(SQL_CONVERT_DATE, union(EnumSet.of(SQL_CONVERT_DATE, SQL_CONVERT_TIMESTAMP), text));
        casts.put(SQL_CONVERT_TIME, union(EnumSet.of(SQL_CONVERT_TIME), text));
        casts.put(SQL_CONVERT_TIMESTAMP,
                union(EnumSet.of(SQL_CONVERT_DATE, SQL_CONVERT_TIME, SQL_CONVERT_TIMESTAMP), text));
        Map<Integer, List<Integer>> numbered = new TreeMap<>();
        casts.forEach((from, to) -> numbered.put(from.getNumber(),
                to.stream().map(SqlSupportsConvert::getNumber).sorted().toList()));
        return numbered;
    }

    private static Set<SqlSupportsConvert> union(Set<SqlSupportsConvert> first, Set<SqlSupportsConvert> second) {
        Set<SqlSupportsConvert> union = EnumSet.copyOf(first);
        union.addAll(second);
        return union;
    }
}
