#!/usr/bin/env bats
# A fixed subset of make eval's fault-injection cases (eval/cases.sh, same
# seeds): tr-cp -q --suspects must name the service the fault was injected
# into first, or nobody when the incident carries no evidence (a code fault
# recorded without status).
load helper

setup() {
	tr-cp --help | grep -q -- --suspects || skip "tr-cp has no --suspects"
}

# Runs case ID with eval/case.sh and checks the first service it named.
check_case() {
	local line res expected named
	line=$(sh "$BATS_TEST_DIRNAME/../eval/cases.sh" | grep "^$1 ")
	[ -n "$line" ] || { echo "no case $1 in eval/cases.sh"; return 1; }
	# shellcheck disable=SC2086
	sh "$BATS_TEST_DIRNAME/../eval/case.sh" "$BATS_TEST_TMPDIR" $line
	res=$(cat "$BATS_TEST_TMPDIR/$1.res")
	expected=$(echo "$res" | cut -f6)
	named=$(echo "$res" | cut -f7)
	if [ "${named%%,*}" != "$expected" ]; then
		echo "expected first: $expected"
		echo "named:          $named"
		cat "$BATS_TEST_TMPDIR/$1.out" "$BATS_TEST_TMPDIR/$1.err"
		return 1
	fi
}

@test "delay into mysql (hotrod, all evidence): mysql" { check_case hotrod-delay-mysql-plain; }
@test "cpu on customer (hotrod, no span kinds): customer" { check_case hotrod-cpu-customer-nokinds; }
@test "slow route (hotrod, wrapper spans): route" { check_case hotrod-slow-route-wrapper; }
@test "redis down (hotrod, no status): redis" { check_case hotrod-down-redis-nostatus; }
@test "errors from customer (hotrod, all evidence): customer" { check_case hotrod-error-customer-plain; }
@test "driver throws, recorded without status (hotrod): nobody" { check_case hotrod-throw-driver-nostatus; }
@test "delay into fraud (shop, wrapper spans): fraud" { check_case shop-delay-fraud-wrapper; }
@test "cpu on auth (shop, all evidence): auth" { check_case shop-cpu-auth-plain; }
@test "slow postgres (shop, no status): postgres" { check_case shop-slow-postgres-nostatus; }
@test "pricing down (shop, no span kinds): pricing" { check_case shop-down-pricing-nokinds; }
@test "feature-store throws (shop, all evidence): feature-store" { check_case shop-throw-feature-store-plain; }
@test "errors from pricing, recorded without status (shop): nobody" { check_case shop-error-pricing-nostatus; }
