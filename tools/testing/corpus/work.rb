# SPDX-License-Identifier: LGPL-2.1-or-later
# Ruby (MRI) workload: the VM's threads, each asking for its stack at
# start, and work on each; deterministic output.
def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

threads = (1..4).map { |i| Thread.new(i) { |k| [k, fib(15 + k), (1..2000).map { |x| (x * k) % 97 }.sort.sum] } }
threads.map(&:value).each { |k, f, s| puts "thread #{k}: fib #{f} sum #{s}" }
words = %w[stack bounds glibc kernel ioctl maps interposer runtime]
puts words.sort_by { |w| [-w.size, w] }.join(" ")
puts (1..20).reduce(:*)
h = Hash.new(0)
("a".."zz").each { |s| h[s[-1]] += 1 }
puts h.sort.first(3).inspect
