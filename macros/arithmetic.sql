{#- Exact decimal arithmetic. Rounding is half away from zero everywhere. -#}

{#- round_half_away(expr, scale): a decimal rounded to `scale` places. -#}
{% macro round_half_away(expr, scale) %}{{ return(adapter.dispatch('round_half_away', 'incentives')(expr, scale)) }}{% endmacro %}
{% macro default__round_half_away(expr, scale) -%}
cast(round({{ expr }}, {{ scale }}) as decimal(38,{{ scale }}))
{%- endmacro %}

{#- round_product(a, b, scale, shift): a x b x 10^shift rounded half away from zero to `scale`
    places, as decimal(38, scale) (shift -2: a percentage). -#}
{% macro round_product(a, b, scale, shift=0) %}{{ return(adapter.dispatch('round_product', 'incentives')(a, b, scale, shift)) }}{% endmacro %}

{% macro default__round_product(a, b, scale, shift=0) -%}
{%- set factor = (" * 0." ~ ("0" * (-shift - 1)) ~ "1") if shift < 0 else ((" * 1" ~ ("0" * shift)) if shift > 0 else "") -%}
{{ incentives.round_half_away("cast(" ~ a ~ " as decimal(38,10)) * " ~ b ~ factor, scale) }}
{%- endmacro %}

{#- DuckDB multiplies DECIMAL(38,x) on 128-bit integers with overflow checks, ten times the cost of
    a double product. As in duckdb__divide: y = a x b x 10^(scale + shift) in double has a relative
    error below 7e-16 (two conversions, two products), so for |y| < 2.5e11 it is off by less than
    2e-4 units; when y is also more than 0.001 away from a rounding tie, round(y) is the exact
    result. Every other row (ties, huge products) takes the exact decimal expression. -#}
{% macro duckdb__round_product(a, b, scale, shift=0) -%}
{%- set exponent = scale + shift -%}
{%- set y = "(cast(" ~ a ~ " as double) * cast(" ~ b ~ " as double)" ~ (" * 1e" ~ exponent if exponent != 0 else "") ~ ")" -%}
{{ incentives._duckdb_double_first(y, incentives.default__round_product(a, b, scale, shift), scale, 250000000000) }}
{%- endmacro %}

{#- Division: one exact quotient, last in its chain ("divide last", docs/semantics.md).

    quotient(terms, multiplier, denominator, scale): (sum of x * y over terms) * multiplier /
    denominator, rounded half away from zero to `scale` places, as decimal(38, scale); null when
    the denominator is 0. `terms` is a list of [x, y] pairs ([x, '1'] for one factor). Every operand
    is a decimal of at most 10 places, so the numerator is exact: nothing is rounded before the
    division. Exact for |numerator| < 10^18, |multiplier| and |denominator| < 10^9 and a quotient
    below 5 x 10^17 (Spark: also |multiplier / denominator| < 10^9, its integer quotients keep 28
    digits); outside these DuckDB and Spark fail the build (overflow), never return a wrong
    digit. PostgreSQL's numeric has no such bound.

    multiply_divide(a, b, c, d, scale) = round(a x b x c / d); divide(n, d, scale) = round(n / d). -#}
{% macro quotient(terms, multiplier, denominator, scale) %}{{ return(adapter.dispatch('quotient', 'incentives')(terms, multiplier, denominator, scale)) }}{% endmacro %}

{% macro multiply_divide(a, b, c, d, scale) %}{{ return(incentives.quotient([[a, b]], c, d, scale)) }}{% endmacro %}

{% macro divide(numerator, denominator, scale) %}{{ return(incentives.quotient([[numerator, '1']], '1', denominator, scale)) }}{% endmacro %}

{#- _unit(scale): the literal 10^-scale. -#}
{% macro _unit(scale) %}{{ return("0." ~ ("0" * (scale - 1)) ~ "1" if scale > 0 else "1") }}{% endmacro %}

{#- Arbitrary-precision numerics (PostgreSQL): the numerator is an exact product and div() is an
    exact integer quotient, so q = sign x floor((2|n| x 10^scale + |d|) / 2|d|) x 10^-scale. -#}
{% macro default__quotient(terms, multiplier, denominator, scale) -%}
{%- set parts = [] -%}
{%- for x, y in terms -%}{%- do parts.append("cast(" ~ x ~ " as numeric) * cast(" ~ y ~ " as numeric)") -%}{%- endfor -%}
{%- set n = "((" ~ parts | join(" + ") ~ ") * cast(" ~ multiplier ~ " as numeric))" -%}
{%- set d = "cast(" ~ denominator ~ " as numeric)" -%}
cast(case when {{ d }} = 0 then null
 else sign({{ n }}) * sign({{ d }})
   * div(abs({{ n }}) * 2{{ "0" * scale }} + abs({{ d }}), 2 * abs({{ d }}))
   * {{ incentives._unit(scale) }} end as decimal(38,{{ scale }}))
{%- endmacro %}

{#- 128-bit integer arithmetic (DuckDB HUGEINT, Spark DECIMAL(38,0)). With P = |numerator| x 10^20,
    o = |multiplier| x 10^10 and s = |denominator| x 10^10 (integers below 10^38, 10^19, 10^19),
    the quotient is _rounded_limb_quotient(P, o, s, 10^(20 - scale)) x 10^-scale. -#}
{% macro _quotient_in_limbs(terms, multiplier, denominator, scale, int, limb_quotient) -%}
{%- set parts = [] -%}
{%- for x, y in terms -%}
  {%- do parts.append(incentives._scaled_integer(x, int) ~ " * " ~ incentives._scaled_integer(y, int)) -%}
{%- endfor -%}
{%- set signed_p = "(" ~ parts | join(" + ") ~ ")" -%}
{%- set signed_o = incentives._scaled_integer(multiplier, int) -%}
{%- set signed_s = incentives._scaled_integer(denominator, int) -%}
({{ limb_quotient(signed_p, signed_o, signed_s, 20 - scale, 19, 21) }} * {{ incentives._unit(scale) }})
{%- endmacro %}

{#- _rounded_limb_quotient(p, o, s, u, limb, s_digits, int, idiv): p x o / (s x 10^u) rounded half
    away from zero, as the integer type `int` (decimal(38,0) on Spark), for integer expressions p,
    o, s (|s| below 10^s_digits); null when s is 0. With B = 10^limb, T = floor(|p| |o| / |s|) is found in two limbs of |p| so
    that no product exceeds 10^38 (needs |s| x B, |o| x B and (|p| / B) x |o| below 10^38):
      |p| = p1 B + p0;  p1 o = qa s + ra;  ra B = qb s + rb;  p0 o = qc s + rc
      T = qa B + qb + qc + floor((rb + rc) / s)
    The quotient is T / U (U = 10^u, u >= 1) plus less than one unit of T, so rounded half away
    from zero it is floor((2T + U) / 2U) (U is even): T appears once (Spark's integer division
    repeats its dividend, and long expressions cost Spark memory in planning). `idiv(a, b,
    digits)` is the engine's exact integer division by a divisor below 10^digits. A zero s is null, so every division by it is null: no
    CASE guard, which would keep Spark from sharing the limbs' repeated parts (about 20 times
    the CPU per row). -#}
{% macro _rounded_limb_quotient(p, o, s, u, limb, s_digits, int, idiv) -%}
{%- set signed_s = "nullif(" ~ s ~ ", 0)" -%}
{%- set abs_p = "abs(" ~ p ~ ")" -%}
{%- set abs_o = "abs(" ~ o ~ ")" -%}
{%- set abs_s = "abs(" ~ signed_s ~ ")" -%}
{%- set b = "cast(1" ~ ("0" * limb) ~ " as " ~ int ~ ")" -%}
{%- set p1 = idiv(abs_p, b) -%}
{%- set p0 = "(" ~ abs_p ~ " % " ~ b ~ ")" -%}
{%- set a = "(" ~ p1 ~ " * " ~ abs_o ~ ")" -%}
{%- set ra = "(" ~ a ~ " % " ~ abs_s ~ ")" -%}
{%- set c = "(" ~ p0 ~ " * " ~ abs_o ~ ")" -%}
{%- set t = "(" ~ idiv(a, abs_s, s_digits) ~ " * " ~ b ~ " + " ~ idiv("(" ~ ra ~ " * " ~ b ~ ")", abs_s, s_digits) ~ " + " ~ idiv(c, abs_s, s_digits)
    ~ " + " ~ idiv("((" ~ ra ~ " * " ~ b ~ ") % " ~ abs_s ~ " + " ~ c ~ " % " ~ abs_s ~ ")", abs_s, s_digits) ~ ")" -%}
{%- set big_u = "cast(1" ~ ("0" * u) ~ " as " ~ int ~ ")" -%}
{%- set rounded = idiv("(" ~ t ~ " * 2 + " ~ big_u ~ ")", "(" ~ big_u ~ " * 2)") -%}
(cast(cast(sign({{ p }}) * sign({{ o }}) * sign({{ signed_s }}) as {{ int }}) * {{ rounded }} as decimal(38,0)))
{%- endmacro %}

{#- quotient_of_products(p, o, s, scale): (product of p) x (product of o) / (product of s), rounded
    half away from zero to `scale` places, as decimal(38, scale); null when a factor of s is 0.
    p, o and s are lists of [expression, places]: a decimal with at most that many places. One
    exact quotient of exact products (divide last): the stacked strategy's coverage shares
    (docs/semantics.md, "Stacked coverage", states the bounds within which the engines keep it
    exact; PostgreSQL's numeric has none). On DuckDB and Spark the factors become integers
    (x x 10^places) and the division runs in two limbs of 10^10: exact while the integer p x 10^k
    (k: the places that make the result an integer count of 10^-(scale + u)), o and s stay below
    10^28 and p x o below 10^48; beyond that the build fails with an overflow, never a wrong
    digit. -#}
{% macro quotient_of_products(p, o, s, scale) %}{{ return(adapter.dispatch('quotient_of_products', 'incentives')(p, o, s, scale)) }}{% endmacro %}

{#- PostgreSQL: the products are exact numerics, so it is default__quotient of one term. -#}
{% macro default__quotient_of_products(p, o, s, scale) -%}
{{ incentives.default__quotient([[incentives._product(p), incentives._product(o)]], '1', incentives._product(s), scale) }}
{%- endmacro %}

{#- _product(factors): the SQL product of a list of [expression, places] (1 when empty). -#}
{% macro _product(factors) -%}
{%- set parts = [] -%}{%- for x, places in factors -%}{%- do parts.append("cast(" ~ x ~ " as numeric)") -%}{%- endfor -%}
{{ return("(" ~ parts | join(" * ") ~ ")" if parts else "1") }}
{%- endmacro %}

{#- the limbs' form on an engine of 128-bit integers (`int`, `idiv`) -#}
{% macro _quotient_of_products_in_limbs(p, o, s, scale, int, limb_quotient) -%}
{%- set ns = namespace(p_places=0, o_places=0, s_places=0) -%}
{%- set ps = [] -%}{%- set os = [] -%}{%- set ss = [] -%}
{%- for x, places in p -%}{%- set ns.p_places = ns.p_places + places -%}{%- do ps.append(incentives._integer_of(x, places, int)) -%}{%- endfor -%}
{%- for x, places in o -%}{%- set ns.o_places = ns.o_places + places -%}{%- do os.append(incentives._integer_of(x, places, int)) -%}{%- endfor -%}
{%- for x, places in s -%}{%- set ns.s_places = ns.s_places + places -%}{%- do ss.append(incentives._integer_of(x, places, int)) -%}{%- endfor -%}
{#- the integers' quotient is the result x 10^(p + o - s places); it must be the result x
    10^(scale + u), u >= 1: P is multiplied by 10^k (or u grows where k would be negative) -#}
{%- set k0 = scale + 1 - ns.p_places - ns.o_places + ns.s_places -%}
{%- set k = [k0, 0] | max -%}
{%- set u = 1 + k - k0 -%}
{%- if k > 0 -%}{%- do ps.append("cast(1" ~ ("0" * k) ~ " as " ~ int ~ ")") -%}{%- endif -%}
{%- if not os -%}{%- do os.append("cast(1 as " ~ int ~ ")") -%}{%- endif -%}
cast({{ limb_quotient("(" ~ ps | join(" * ") ~ ")", "(" ~ os | join(" * ") ~ ")", "(" ~ ss | join(" * ") ~ ")", u, 10, 28) }}
   * {{ incentives._unit(scale) }} as decimal(38,{{ scale }}))
{%- endmacro %}

{#- _integer_of(x, places, int): x x 10^places as the integer type (x has at most that many places). -#}
{% macro _integer_of(x, places, int) -%}
{%- if places == 0 -%}cast({{ x }} as {{ int }})
{%- else -%}cast(cast({{ x }} as decimal(38,{{ places }})) * 1{{ "0" * places }} as {{ int }}){%- endif -%}
{%- endmacro %}

{#- DuckDB: as duckdb__quotient, a row whose double quotient is provably right takes it. With at
    most six factors, each converted within two units in the last place and combined by at most
    five operations, y = result x 10^scale has a relative error below 2e-15, so for |y| < 10^11 it
    is off by less than 2e-4 units; more than 0.001 away from a rounding tie, round(y) is exact.
    Ties, near-ties and large quotients take the exact limbs. -#}
{% macro duckdb__quotient_of_products(p, o, s, scale) -%}
{%- set exact = incentives._quotient_of_products_in_limbs(p, o, s, scale, 'hugeint', incentives._duckdb_limb_quotient) -%}
{%- set num = [] -%}{%- set den = [] -%}
{%- for x, places in p + o -%}{%- if x | string != '1' -%}{%- do num.append("cast(" ~ x ~ " as double)") -%}{%- endif -%}{%- endfor -%}
{%- for x, places in s -%}{%- do den.append("cast(" ~ x ~ " as double)") -%}{%- endfor -%}
{%- if (num | length) + (den | length) > 6 or not den -%}
{{ exact }}
{%- else -%}
{%- set y = "((" ~ ((num | join(" * ")) if num else "1") ~ ") / (" ~ (den | join(" * ")) ~ ")" ~ (" * 1e" ~ scale if scale != 0 else "") ~ ")" -%}
{{ incentives._duckdb_double_first(y, exact, scale) }}
{%- endif -%}
{%- endmacro %}

{#- _duckdb_double_first(y, exact, scale, bound): round(y) x 10^-scale where the double y (the result
    x 10^scale, within 2e-4 units below `bound`: see duckdb__quotient and duckdb__round_product)
    is provably right (|y| < bound, more than 0.001 from a tie), else the exact expression. -#}
{% macro _duckdb_double_first(y, exact, scale, bound=100000000000) -%}
(case when abs({{ y }}) < {{ bound }} and abs({{ y }} - floor({{ y }}) - 0.5) > 0.001
 then cast(cast(round({{ y }}) as decimal(38,0)) * {{ incentives._unit(scale) }} as decimal(38,{{ scale }}))
 else {{ exact }} end)
{%- endmacro %}

{% macro spark__quotient_of_products(p, o, s, scale) -%}
{{ incentives._quotient_of_products_in_limbs(p, o, s, scale, 'decimal(38,0)', incentives._spark_limb_quotient) }}
{%- endmacro %}

{#- raise_error(message): an expression that fails the query with the text `message` (an SQL
    text expression) when it is evaluated; use it in a CASE branch. -#}
{% macro raise_error(message) %}{{ return(adapter.dispatch('raise_error', 'incentives')(message)) }}{% endmacro %}
{#- PostgreSQL has no function that raises: a cast of the text to an integer fails with
    'invalid input syntax for type integer: "<message>"'. -#}
{% macro default__raise_error(message) %}cast(({{ message }}) as integer){% endmacro %}
{% macro duckdb__raise_error(message) %}error({{ message }}){% endmacro %}
{% macro spark__raise_error(message) %}raise_error({{ message }}){% endmacro %}

{#- _scaled_integer(x, int): x x 10^10 as the integer type (x has at most 10 places, |x| < 10^18). -#}
{% macro _scaled_integer(x, int) -%}
{%- if x | string == '1' -%}cast(10000000000 as {{ int }})
{%- else -%}cast(cast({{ x }} as decimal(38,10)) * 10000000000 as {{ int }}){%- endif -%}
{%- endmacro %}

{% macro _duckdb_idiv(a, b, digits=21) %}{{ return("(" ~ a ~ " // " ~ b ~ ")") }}{% endmacro %}

{% macro _duckdb_limb_quotient(p, o, s, u, limb, s_digits) -%}
{{ incentives._rounded_limb_quotient(p, o, s, u, limb, s_digits, 'hugeint', incentives._duckdb_idiv) }}
{%- endmacro %}

{#- DuckDB: 128-bit integer division is slow, so a row whose double quotient is provably right
    takes it: y = n / d x 10^scale in double has a relative error below 2e-15 (at most three
    operand conversions and three operations, each within 2^-53, twice for a decimal's
    conversion), so for |y| < 10^11 it is off by less than 2e-4 units; when y is also more than
    0.001 away from a rounding tie, round(y) is the exact result. Ties, near-ties and large
    quotients take the exact limbs. A numerator of several terms (which may cancel) always does. -#}
{% macro duckdb__quotient(terms, multiplier, denominator, scale) -%}
{%- set exact = incentives._quotient_in_limbs(terms, multiplier, denominator, scale, 'hugeint', incentives._duckdb_limb_quotient) -%}
{%- if terms | length == 1 -%}
{%- set factors = [] -%}
{%- for f in [terms[0][0], terms[0][1], multiplier] -%}{%- if f | string != '1' -%}{%- do factors.append("cast(" ~ f ~ " as double)") -%}{%- endif -%}{%- endfor -%}
{%- set y = "(" ~ (factors | join(" * ")) ~ " / cast(" ~ denominator ~ " as double)" ~ (" * 1e" ~ scale if scale != 0 else "") ~ ")" -%}
(case when cast({{ denominator }} as decimal(38,10)) = 0 then null
 else {{ incentives._duckdb_double_first(y, "cast(" ~ exact ~ " as decimal(38," ~ scale ~ "))", scale) }} end)
{%- else -%}
cast({{ exact }} as decimal(38,{{ scale }}))
{%- endif -%}
{%- endmacro %}

{#- Spark: (a - a % b) / b is an exact integer quotient. Its decimal type keeps 28 integer digits
    when the divisor is typed DECIMAL(21,0) (a divisor below 10^21), 24 typed DECIMAL(28,0),
    20 typed DECIMAL(38,0); a larger quotient fails (ANSI mode), never a wrong digit. -#}
{% macro _spark_idiv(a, b, digits=21) %}{{ return("cast((" ~ a ~ " - " ~ a ~ " % " ~ b ~ ") / cast(" ~ b ~ " as decimal(" ~ digits ~ ",0)) as decimal(38,0))") }}{% endmacro %}

{#- _spark_limb_quotient(p, o, s, u, limb, s_digits): _rounded_limb_quotient on Spark, each operand
    and limb computed once. Written out, the limbs repeat p 32 times and o 20 times (Spark's integer
    division repeats its dividend), and Spark's planner and code generator hold every copy: the
    SQL of one quotient is 17 KB where its operands are columns, a model with a dozen of them
    took minutes to plan and exhausted the driver's memory. Here each value is bound once, as the
    variable of a lambda over a one-element array (_spark_let), and every later step names it. -#}
{% macro _spark_limb_quotient(p, o, s, u, limb, s_digits) -%}
{%- set int = 'decimal(38,0)' -%}
{%- set idiv = incentives._spark_idiv -%}
{%- set b = "cast(1" ~ ("0" * limb) ~ " as " ~ int ~ ")" -%}
{%- set big_u = "cast(1" ~ ("0" * u) ~ " as " ~ int ~ ")" -%}
{%- set t = "(" ~ idiv("q.a", "q.s", s_digits) ~ " * " ~ b ~ " + " ~ idiv("(r.ra * " ~ b ~ ")", "q.s", s_digits) ~ " + " ~ idiv("q.c", "q.s", s_digits)
    ~ " + " ~ idiv("((r.ra * " ~ b ~ ") % q.s + q.c % q.s)", "q.s", s_digits) ~ ")" -%}
{%- set rounded = idiv("(w.t * 2 + " ~ big_u ~ ")", "(" ~ big_u ~ " * 2)") -%}
{{ incentives._spark_let('v', [['g', "cast(sign(" ~ p ~ ") * sign(" ~ o ~ ") * sign(nullif(" ~ s ~ ", 0)) as " ~ int ~ ")"],
                                ['p', "abs(" ~ p ~ ")"], ['o', "abs(" ~ o ~ ")"], ['s', "abs(nullif(" ~ s ~ ", 0))"]],
     incentives._spark_let('q', [['a', "(" ~ idiv("v.p", b) ~ " * v.o)"], ['c', "((v.p % " ~ b ~ ") * v.o)"], ['s', "v.s"]],
       incentives._spark_let('r', [['ra', "(q.a % q.s)"]],
         incentives._spark_let('w', [['t', t]],
           "cast(v.g * " ~ rounded ~ " as decimal(38,0))")))) }}
{%- endmacro %}

{#- _spark_let(name, fields, body): `body` with `name` bound to a struct of `fields` ([field,
    expression] pairs, each expression evaluated once per row): Spark SQL has no let, so a
    lambda over a one-element array. -#}
{% macro _spark_let(name, fields, body) -%}
{%- set parts = [] -%}{%- for field, expr in fields -%}{%- do parts.append("'" ~ field ~ "', " ~ expr) -%}{%- endfor -%}
{{ return("element_at(transform(array(named_struct(" ~ parts | join(", ") ~ ")), " ~ name ~ " -> " ~ body ~ "), 1)") }}
{%- endmacro %}

{#- Spark: one decimal division, then the exact rounding (spark_rounded_quotient). The numerator
    is exact in DECIMAL(38, 20) (products of two operands of 10 places below 10^18), the
    denominator in DECIMAL(38, 10), and Spark types their quotient DECIMAL(38, 23) (DECIMAL(38, 18)
    for a numerator of single operands): 15 integer digits (20), more places than the result's.
    A multiplier other than 1 (no caller has one) takes the limbs. -#}
{% macro spark__quotient(terms, multiplier, denominator, scale) -%}
{%- if multiplier | string != '1' -%}
cast({{ incentives._quotient_in_limbs(terms, multiplier, denominator, scale, 'decimal(38,0)', incentives._spark_limb_quotient) }} as decimal(38,{{ scale }}))
{%- else -%}
{%- set parts = [] -%}
{%- for x, y in terms -%}
  {%- if y | string == '1' -%}{%- do parts.append("cast(" ~ x ~ " as decimal(38,10))") -%}
  {%- else -%}{%- do parts.append("cast(" ~ x ~ " as decimal(38,10)) * cast(" ~ y ~ " as decimal(38,10))") -%}{%- endif -%}
{%- endfor -%}
{{ incentives._spark_rounded_quotient("(" ~ parts | join(" + ") ~ ")", "cast(" ~ denominator ~ " as decimal(38,10))", scale) }}
{%- endif -%}
{%- endmacro %}

{#- _spark_rounded_quotient(n, d, scale): n / d rounded half away from zero to `scale` places, as
    decimal(38, scale), null when d is 0, for exact decimals n and d whose Spark quotient has more
    than `scale` places (so it is within 10^-(scale+1) of n / d). Spark rounds that quotient (to
    its type's places, then to `scale`: a rounding of a rounding can land one unit off at a tie),
    so q0 = cast(n / d) is within one unit u = 10^-scale of n / d, and the exact remainder
    e = n - q0 x d decides: 2|e| < |d| u keeps q0; 2|e| > |d| u moves one unit toward n / d (the
    direction sign(e) x sign(d)); 2|e| = |d| u is a tie, which moves only away from zero (when
    sign(e) = sign(n)). Every step is an exact decimal product or difference (|x| is written
    x x sign(x): Spark's abs() and unary minus keep only 34 significant digits), and the SQL is a
    few copies of n and d, which Spark's planner and code generator share (the limbs' form is 20
    times longer). Beyond the types' digits Spark fails the build (ANSI mode), never a wrong digit. -#}
{% macro _spark_rounded_quotient(n, d, scale) -%}
{%- set unit = incentives._unit(scale) -%}
{%- set dd = "nullif(" ~ d ~ ", 0)" -%}
{%- set q0 = "cast(" ~ n ~ " / " ~ dd ~ " as decimal(38," ~ scale ~ "))" -%}
{%- set e = "(" ~ n ~ " - " ~ q0 ~ " * " ~ dd ~ ")" -%}
{%- set c = "sign(2 * " ~ e ~ " * cast(sign(" ~ e ~ ") as decimal(1,0)) - " ~ dd ~ " * cast(sign(" ~ dd ~ ") as decimal(1,0)) * " ~ unit ~ ")" -%}
{%- set step = "cast((" ~ c ~ " + 1 + (1 - abs(" ~ c ~ ")) * sign(" ~ n ~ ") * sign(" ~ e ~ ")) / 2 * sign(" ~ e ~ ") * sign(" ~ dd ~ ") as decimal(1,0))" -%}
cast({{ q0 }} + {{ step }} * {{ unit }} as decimal(38,{{ scale }}))
{%- endmacro %}

{#- safe_to_decimal(text_expr): the text as a measure, or null when it is not a number. -#}
{% macro safe_to_decimal(expr) %}{{ return(adapter.dispatch('safe_to_decimal', 'incentives')(expr)) }}{% endmacro %}
{% macro default__safe_to_decimal(expr) -%}
(case when trim({{ expr }}) ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$'
 then cast(trim({{ expr }}) as {{ incentives.type_measure() }}) end)
{%- endmacro %}
{% macro duckdb__safe_to_decimal(expr) -%}
(case when regexp_full_match(trim({{ expr }}), '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?')
 then try_cast(trim({{ expr }}) as {{ incentives.type_measure() }}) end)
{%- endmacro %}
{#- PostgreSQL has no try_cast: the cast runs only on a number that fits DECIMAL(38,10) (an
    exponent of at most 3 digits keeps numeric itself from overflowing). -#}
{% macro postgres__safe_to_decimal(expr) -%}
(case when trim({{ expr }}) ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]{1,3})?$'
 then (case when abs(round(cast(trim({{ expr }}) as numeric), 10)) < 1e28
       then cast(trim({{ expr }}) as {{ incentives.type_measure() }}) end) end)
{%- endmacro %}
{#- Spark's cast accepts more spellings (surrounding whitespace, trailing newline), so check the
    same pattern as DuckDB first (\z is the very end: Java's $ also matches before a newline). -#}
{% macro spark__safe_to_decimal(expr) -%}
(case when trim({{ expr }}) rlike '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?\\z'
 then try_cast(trim({{ expr }}) as {{ incentives.type_measure() }}) end)
{%- endmacro %}

{#- to_boolean_number(text_expr): 1 for true/1, 0 for false/0 (any case), else null. -#}
{% macro to_boolean_number(expr) -%}
(case lower(trim({{ expr }})) when 'true' then 1 when '1' then 1 when 'false' then 0 when '0' then 0 end)
{%- endmacro %}

{#- compare(operator_column, actual, target): the qualification operators, exactly. -#}
{% macro compare(operator, actual, target) -%}
(case {{ operator }}
  when 'greater_than_or_equal_to' then {{ actual }} >= {{ target }}
  when 'greater_than' then {{ actual }} > {{ target }}
  when 'less_than_or_equal_to' then {{ actual }} <= {{ target }}
  when 'less_than' then {{ actual }} < {{ target }}
  when 'equal_to' then {{ actual }} = {{ target }}
 end)
{%- endmacro %}
