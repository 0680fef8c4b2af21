# SPDX-License-Identifier: LGPL-2.1-or-later
# Deep recursion on the main thread through C frames (Array#each), so the
# machine stack, whose bounds MRI took from pthread_getattr_np, overflows
# before the VM's own stack: MRI must detect it (SystemStackError).
$depth = 0
def down
  $depth += 1
  [1].each { down }
end
begin
  down
  puts "no overflow"
rescue SystemStackError => e
  puts "SystemStackError (#{e.message}) after more than 1000 levels: #{$depth > 1000}"
end
