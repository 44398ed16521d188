pair_id	topic	left	right	label	left_scu	right_scu
12.2-12.0	D9901	Funding of 1.2 million euros	The bridge cost 1.2 million euros	1	12	12
6.0-10.0	D9901	The mayor called the bridge the work of the whole town	Money came from the regional council and donations	0	6	10
12.0-11.0	D9901	The bridge cost 1.2 million euros	The bridge is 48 metres long	0	12	11
1.1-4.2	D9901	Volunteers built most of the bridge	the mayor of Brellmoor, Ida Fenwick	0	1	4
5.3-7.0	D9901	Cars are not allowed on the bridge	Floods destroyed the old bridge over the Vask	0	5	7
5.0-11.0	D9901	Cars may not use the bridge	The bridge is 48 metres long	0	5	11
1.1-1.0	D9901	Volunteers built most of the bridge	Volunteers from the town built the bridge	1	1	1
12.0-6.0	D9901	The bridge cost 1.2 million euros	The mayor called the bridge the work of the whole town	0	12	6
7.3-12.0	D9901	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	The bridge cost 1.2 million euros	0	7	12
7.1-11.0	D9901	two years after spring floods swept the old bridge away	The bridge is 48 metres long	0	7	11
12.3-12.0	D9901	The new structure cost 1.2 million euros	The bridge cost 1.2 million euros	1	12	12
7.2-7.1	D9901	The previous crossing was destroyed by flooding in 2022	two years after spring floods swept the old bridge away	1	7	7
5.3-11.0	D9901	Cars are not allowed on the bridge	The bridge is 48 metres long	0	5	11
1.0-7.3	D9901	Volunteers from the town built the bridge	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	1	7
12.1-6.0	D9901	The project cost 1.2 million euros	The mayor called the bridge the work of the whole town	0	12	6
5.0-7.3	D9901	Cars may not use the bridge	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	5	7
8.2-8.0	D9901	Hollin & Sons brewery sponsored the lamps along the deck	Hollin & Sons, a local brewery, paid for the bridge lights	1	8	8
9.1-9.3	D9901	Schoolchildren had walked an extra three kilometres each day. That detour ended	Children going to school had faced a detour of three kilometres	1	9	9
4.1-3.4	D9901	The mayor, Ida Fenwick	On 14 May the mayor of Brellmoor opened a footbridge	0	4	3
6.0-4.2	D9901	The mayor called the bridge the work of the whole town	the mayor of Brellmoor, Ida Fenwick	0	6	4
11.0-7.3	D9901	The bridge is 48 metres long	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	11	7
8.0-3.0	D9901	Hollin & Sons, a local brewery, paid for the bridge lights	A new footbridge over the Vask River in Brellmoor opened on 14 May	0	8	3
1.0-11.0	D9901	Volunteers from the town built the bridge	The bridge is 48 metres long	0	1	11
9.0-7.1	D9901	Without the bridge schoolchildren faced a detour of three kilometres	two years after spring floods swept the old bridge away	0	9	7
4.2-4.1	D9901	the mayor of Brellmoor, Ida Fenwick	The mayor, Ida Fenwick	1	4	4
2.1-2.0	D9901	in weekends over eight months	Construction took eight months	1	2	2
1.0-8.0	D9901	Volunteers from the town built the bridge	Hollin & Sons, a local brewery, paid for the bridge lights	0	1	8
8.1-3.4	D9901	Hollin & Sons, a local brewery, paid for the lighting	On 14 May the mayor of Brellmoor opened a footbridge	0	8	3
3.1-5.3	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	Cars are not allowed on the bridge	0	3	5
10.1-1.0	D9901	came from the regional council and donations	Volunteers from the town built the bridge	0	10	1
5.0-1.1	D9901	Cars may not use the bridge	Volunteers built most of the bridge	0	5	1
6.0-3.2	D9901	The mayor called the bridge the work of the whole town	Brellmoor's footbridge across the Vask was opened on 14 May	0	6	3
8.1-8.0	D9901	Hollin & Sons, a local brewery, paid for the lighting	Hollin & Sons, a local brewery, paid for the bridge lights	1	8	8
5.1-5.2	D9901	closed to cars	carries pedestrians and cyclists only	1	5	5
3.1-7.3	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	3	7
8.0-5.3	D9901	Hollin & Sons, a local brewery, paid for the bridge lights	Cars are not allowed on the bridge	0	8	5
12.1-12.3	D9901	The project cost 1.2 million euros	The new structure cost 1.2 million euros	1	12	12
8.0-9.2	D9901	Hollin & Sons, a local brewery, paid for the bridge lights	Pupils no longer need a three-kilometre detour to reach the school	0	8	9
1.1-12.0	D9901	Volunteers built most of the bridge	The bridge cost 1.2 million euros	0	1	12
12.3-6.0	D9901	The new structure cost 1.2 million euros	The mayor called the bridge the work of the whole town	0	12	6
5.3-1.1	D9901	Cars are not allowed on the bridge	Volunteers built most of the bridge	0	5	1
9.0-12.0	D9901	Without the bridge schoolchildren faced a detour of three kilometres	The bridge cost 1.2 million euros	0	9	12
3.4-3.0	D9901	On 14 May the mayor of Brellmoor opened a footbridge	A new footbridge over the Vask River in Brellmoor opened on 14 May	1	3	3
3.4-9.2	D9901	On 14 May the mayor of Brellmoor opened a footbridge	Pupils no longer need a three-kilometre detour to reach the school	0	3	9
1.1-6.0	D9901	Volunteers built most of the bridge	The mayor called the bridge the work of the whole town	0	1	6
7.2-7.0	D9901	The previous crossing was destroyed by flooding in 2022	Floods destroyed the old bridge over the Vask	1	7	7
3.1-9.0	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	Without the bridge schoolchildren faced a detour of three kilometres	0	3	9
8.1-9.0	D9901	Hollin & Sons, a local brewery, paid for the lighting	Without the bridge schoolchildren faced a detour of three kilometres	0	8	9
4.1-4.0	D9901	The mayor, Ida Fenwick	Ida Fenwick is the mayor of Brellmoor	1	4	4
4.2-9.0	D9901	the mayor of Brellmoor, Ida Fenwick	Without the bridge schoolchildren faced a detour of three kilometres	0	4	9
3.4-3.2	D9901	On 14 May the mayor of Brellmoor opened a footbridge	Brellmoor's footbridge across the Vask was opened on 14 May	1	3	3
6.0-8.2	D9901	The mayor called the bridge the work of the whole town	Hollin & Sons brewery sponsored the lamps along the deck	0	6	8
3.2-5.0	D9901	Brellmoor's footbridge across the Vask was opened on 14 May	Cars may not use the bridge	0	3	5
3.2-7.3	D9901	Brellmoor's footbridge across the Vask was opened on 14 May	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	3	7
10.0-10.1	D9901	Money came from the regional council and donations	came from the regional council and donations	1	10	10
7.3-7.2	D9901	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	The previous crossing was destroyed by flooding in 2022	1	7	7
5.3-1.0	D9901	Cars are not allowed on the bridge	Volunteers from the town built the bridge	0	5	1
6.0-4.1	D9901	The mayor called the bridge the work of the whole town	The mayor, Ida Fenwick	0	6	4
3.1-9.2	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	Pupils no longer need a three-kilometre detour to reach the school	0	3	9
3.4-9.0	D9901	On 14 May the mayor of Brellmoor opened a footbridge	Without the bridge schoolchildren faced a detour of three kilometres	0	3	9
6.0-8.1	D9901	The mayor called the bridge the work of the whole town	Hollin & Sons, a local brewery, paid for the lighting	0	6	8
12.1-12.2	D9901	The project cost 1.2 million euros	Funding of 1.2 million euros	1	12	12
7.2-6.0	D9901	The previous crossing was destroyed by flooding in 2022	The mayor called the bridge the work of the whole town	0	7	6
1.0-8.2	D9901	Volunteers from the town built the bridge	Hollin & Sons brewery sponsored the lamps along the deck	0	1	8
5.3-12.0	D9901	Cars are not allowed on the bridge	The bridge cost 1.2 million euros	0	5	12
3.4-3.3	D9901	On 14 May the mayor of Brellmoor opened a footbridge	A replacement footbridge opened in May	1	3	3
7.0-8.2	D9901	Floods destroyed the old bridge over the Vask	Hollin & Sons brewery sponsored the lamps along the deck	0	7	8
5.0-1.0	D9901	Cars may not use the bridge	Volunteers from the town built the bridge	0	5	1
3.0-7.3	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	3	7
2.1-3.0	D9901	in weekends over eight months	A new footbridge over the Vask River in Brellmoor opened on 14 May	0	2	3
3.1-9.3	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	Children going to school had faced a detour of three kilometres	0	3	9
8.1-3.0	D9901	Hollin & Sons, a local brewery, paid for the lighting	A new footbridge over the Vask River in Brellmoor opened on 14 May	0	8	3
3.0-12.3	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	The new structure cost 1.2 million euros	0	3	12
3.2-5.3	D9901	Brellmoor's footbridge across the Vask was opened on 14 May	Cars are not allowed on the bridge	0	3	5
7.3-4.2	D9901	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	the mayor of Brellmoor, Ida Fenwick	0	7	4
7.1-7.0	D9901	two years after spring floods swept the old bridge away	Floods destroyed the old bridge over the Vask	1	7	7
6.0-3.1	D9901	The mayor called the bridge the work of the whole town	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	0	6	3
7.1-8.0	D9901	two years after spring floods swept the old bridge away	Hollin & Sons, a local brewery, paid for the bridge lights	0	7	8
7.3-7.1	D9901	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	two years after spring floods swept the old bridge away	1	7	7
7.1-6.0	D9901	two years after spring floods swept the old bridge away	The mayor called the bridge the work of the whole town	0	7	6
1.1-4.0	D9901	Volunteers built most of the bridge	Ida Fenwick is the mayor of Brellmoor	0	1	4
5.2-5.3	D9901	carries pedestrians and cyclists only	Cars are not allowed on the bridge	1	5	5
1.0-7.0	D9901	Volunteers from the town built the bridge	Floods destroyed the old bridge over the Vask	0	1	7
3.0-7.0	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	Floods destroyed the old bridge over the Vask	0	3	7
9.0-9.3	D9901	Without the bridge schoolchildren faced a detour of three kilometres	Children going to school had faced a detour of three kilometres	1	9	9
11.0-7.0	D9901	The bridge is 48 metres long	Floods destroyed the old bridge over the Vask	0	11	7
3.1-7.0	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	Floods destroyed the old bridge over the Vask	0	3	7
12.3-3.1	D9901	The new structure cost 1.2 million euros	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	0	12	3
12.2-12.3	D9901	Funding of 1.2 million euros	The new structure cost 1.2 million euros	1	12	12
6.0-3.0	D9901	The mayor called the bridge the work of the whole town	A new footbridge over the Vask River in Brellmoor opened on 14 May	0	6	3
8.1-9.2	D9901	Hollin & Sons, a local brewery, paid for the lighting	Pupils no longer need a three-kilometre detour to reach the school	0	8	9
6.0-2.2	D9901	The mayor called the bridge the work of the whole town	the construction, which took eight months	0	6	2
1.1-8.0	D9901	Volunteers built most of the bridge	Hollin & Sons, a local brewery, paid for the bridge lights	0	1	8
12.0-8.0	D9901	The bridge cost 1.2 million euros	Hollin & Sons, a local brewery, paid for the bridge lights	0	12	8
3.4-7.3	D9901	On 14 May the mayor of Brellmoor opened a footbridge	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	3	7
3.0-9.0	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	Without the bridge schoolchildren faced a detour of three kilometres	0	3	9
8.2-3.1	D9901	Hollin & Sons brewery sponsored the lamps along the deck	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	0	8	3
6.0-5.0	D9901	The mayor called the bridge the work of the whole town	Cars may not use the bridge	0	6	5
4.0-3.0	D9901	Ida Fenwick is the mayor of Brellmoor	A new footbridge over the Vask River in Brellmoor opened on 14 May	0	4	3
3.0-3.1	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	1	3	3
9.0-7.0	D9901	Without the bridge schoolchildren faced a detour of three kilometres	Floods destroyed the old bridge over the Vask	0	9	7
3.1-5.0	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	Cars may not use the bridge	0	3	5
9.2-9.3	D9901	Pupils no longer need a three-kilometre detour to reach the school	Children going to school had faced a detour of three kilometres	1	9	9
5.0-12.0	D9901	Cars may not use the bridge	The bridge cost 1.2 million euros	0	5	12
12.0-7.1	D9901	The bridge cost 1.2 million euros	two years after spring floods swept the old bridge away	0	12	7
9.0-5.0	D9901	Without the bridge schoolchildren faced a detour of three kilometres	Cars may not use the bridge	0	9	5
1.1-7.3	D9901	Volunteers built most of the bridge	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	1	7
3.1-3.2	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	Brellmoor's footbridge across the Vask was opened on 14 May	1	3	3
3.4-5.0	D9901	On 14 May the mayor of Brellmoor opened a footbridge	Cars may not use the bridge	0	3	5
7.0-12.0	D9901	Floods destroyed the old bridge over the Vask	The bridge cost 1.2 million euros	0	7	12
9.0-9.2	D9901	Without the bridge schoolchildren faced a detour of three kilometres	Pupils no longer need a three-kilometre detour to reach the school	1	9	9
1.3-1.0	D9901	built mainly by volunteers	Volunteers from the town built the bridge	1	1	1
3.0-5.0	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	Cars may not use the bridge	0	3	5
3.0-3.3	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	A replacement footbridge opened in May	1	3	3
8.0-9.0	D9901	Hollin & Sons, a local brewery, paid for the bridge lights	Without the bridge schoolchildren faced a detour of three kilometres	0	8	9
3.4-3.1	D9901	On 14 May the mayor of Brellmoor opened a footbridge	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	1	3	3
1.1-7.0	D9901	Volunteers built most of the bridge	Floods destroyed the old bridge over the Vask	0	1	7
6.0-9.2	D9901	The mayor called the bridge the work of the whole town	Pupils no longer need a three-kilometre detour to reach the school	0	6	9
8.2-8.1	D9901	Hollin & Sons brewery sponsored the lamps along the deck	Hollin & Sons, a local brewery, paid for the lighting	1	8	8
5.0-7.0	D9901	Cars may not use the bridge	Floods destroyed the old bridge over the Vask	0	5	7
9.0-7.3	D9901	Without the bridge schoolchildren faced a detour of three kilometres	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	9	7
5.0-5.3	D9901	Cars may not use the bridge	Cars are not allowed on the bridge	1	5	5
3.1-1.0	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	Volunteers from the town built the bridge	0	3	1
4.0-3.2	D9901	Ida Fenwick is the mayor of Brellmoor	Brellmoor's footbridge across the Vask was opened on 14 May	0	4	3
6.0-9.0	D9901	The mayor called the bridge the work of the whole town	Without the bridge schoolchildren faced a detour of three kilometres	0	6	9
3.0-9.2	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	Pupils no longer need a three-kilometre detour to reach the school	0	3	9
9.0-1.0	D9901	Without the bridge schoolchildren faced a detour of three kilometres	Volunteers from the town built the bridge	0	9	1
12.0-1.0	D9901	The bridge cost 1.2 million euros	Volunteers from the town built the bridge	0	12	1
9.0-5.3	D9901	Without the bridge schoolchildren faced a detour of three kilometres	Cars are not allowed on the bridge	0	9	5
5.1-5.3	D9901	closed to cars	Cars are not allowed on the bridge	1	5	5
3.2-3.3	D9901	Brellmoor's footbridge across the Vask was opened on 14 May	A replacement footbridge opened in May	1	3	3
11.0-8.0	D9901	The bridge is 48 metres long	Hollin & Sons, a local brewery, paid for the bridge lights	0	11	8
6.0-10.1	D9901	The mayor called the bridge the work of the whole town	came from the regional council and donations	0	6	10
1.0-6.0	D9901	Volunteers from the town built the bridge	The mayor called the bridge the work of the whole town	0	1	6
11.0-1.1	D9901	The bridge is 48 metres long	Volunteers built most of the bridge	0	11	1
7.3-8.0	D9901	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	Hollin & Sons, a local brewery, paid for the bridge lights	0	7	8
4.2-3.1	D9901	the mayor of Brellmoor, Ida Fenwick	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	0	4	3
7.0-6.0	D9901	Floods destroyed the old bridge over the Vask	The mayor called the bridge the work of the whole town	0	7	6
1.0-7.1	D9901	Volunteers from the town built the bridge	two years after spring floods swept the old bridge away	0	1	7
7.3-6.0	D9901	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	The mayor called the bridge the work of the whole town	0	7	6
10.0-1.0	D9901	Money came from the regional council and donations	Volunteers from the town built the bridge	0	10	1
11.0-9.0	D9901	The bridge is 48 metres long	Without the bridge schoolchildren faced a detour of three kilometres	0	11	9
7.3-7.0	D9901	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	Floods destroyed the old bridge over the Vask	1	7	7
6.0-11.2	D9901	The mayor called the bridge the work of the whole town	The 48-metre span	0	6	11
8.0-3.1	D9901	Hollin & Sons, a local brewery, paid for the bridge lights	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	0	8	3
8.0-3.4	D9901	Hollin & Sons, a local brewery, paid for the bridge lights	On 14 May the mayor of Brellmoor opened a footbridge	0	8	3
5.0-5.2	D9901	Cars may not use the bridge	carries pedestrians and cyclists only	1	5	5
5.0-5.1	D9901	Cars may not use the bridge	closed to cars	1	5	5
7.0-8.0	D9901	Floods destroyed the old bridge over the Vask	Hollin & Sons, a local brewery, paid for the bridge lights	0	7	8
3.0-3.2	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	Brellmoor's footbridge across the Vask was opened on 14 May	1	3	3
3.1-3.3	D9901	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	A replacement footbridge opened in May	1	3	3
4.0-3.1	D9901	Ida Fenwick is the mayor of Brellmoor	The town of Brellmoor opened a new footbridge over the Vask River on 14 May	0	4	3
5.3-7.1	D9901	Cars are not allowed on the bridge	two years after spring floods swept the old bridge away	0	5	7
3.4-1.1	D9901	On 14 May the mayor of Brellmoor opened a footbridge	Volunteers built most of the bridge	0	3	1
4.2-3.2	D9901	the mayor of Brellmoor, Ida Fenwick	Brellmoor's footbridge across the Vask was opened on 14 May	0	4	3
5.0-7.1	D9901	Cars may not use the bridge	two years after spring floods swept the old bridge away	0	5	7
3.0-5.3	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	Cars are not allowed on the bridge	0	3	5
6.0-8.0	D9901	The mayor called the bridge the work of the whole town	Hollin & Sons, a local brewery, paid for the bridge lights	0	6	8
9.0-1.1	D9901	Without the bridge schoolchildren faced a detour of three kilometres	Volunteers built most of the bridge	0	9	1
9.1-9.2	D9901	Schoolchildren had walked an extra three kilometres each day. That detour ended	Pupils no longer need a three-kilometre detour to reach the school	1	9	9
6.0-5.3	D9901	The mayor called the bridge the work of the whole town	Cars are not allowed on the bridge	0	6	5
3.2-7.0	D9901	Brellmoor's footbridge across the Vask was opened on 14 May	Floods destroyed the old bridge over the Vask	0	3	7
5.3-7.3	D9901	Cars are not allowed on the bridge	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	0	5	7
6.0-4.0	D9901	The mayor called the bridge the work of the whole town	Ida Fenwick is the mayor of Brellmoor	0	6	4
1.3-1.1	D9901	built mainly by volunteers	Volunteers built most of the bridge	1	1	1
6.0-3.4	D9901	The mayor called the bridge the work of the whole town	On 14 May the mayor of Brellmoor opened a footbridge	0	6	3
6.0-11.0	D9901	The mayor called the bridge the work of the whole town	The bridge is 48 metres long	0	6	11
8.0-5.0	D9901	Hollin & Sons, a local brewery, paid for the bridge lights	Cars may not use the bridge	0	8	5
9.0-9.1	D9901	Without the bridge schoolchildren faced a detour of three kilometres	Schoolchildren had walked an extra three kilometres each day. That detour ended	1	9	9
11.2-11.0	D9901	The 48-metre span	The bridge is 48 metres long	1	11	11
3.0-7.2	D9901	A new footbridge over the Vask River in Brellmoor opened on 14 May	The previous crossing was destroyed by flooding in 2022	0	3	7
4.2-3.0	D9901	the mayor of Brellmoor, Ida Fenwick	A new footbridge over the Vask River in Brellmoor opened on 14 May	0	4	3
12.1-12.0	D9901	The project cost 1.2 million euros	The bridge cost 1.2 million euros	1	12	12
4.0-3.4	D9901	Ida Fenwick is the mayor of Brellmoor	On 14 May the mayor of Brellmoor opened a footbridge	0	4	3
4.0-9.0	D9901	Ida Fenwick is the mayor of Brellmoor	Without the bridge schoolchildren faced a detour of three kilometres	0	4	9
2.2-2.1	D9901	the construction, which took eight months	in weekends over eight months	1	2	2
4.0-11.0	D9901	Ida Fenwick is the mayor of Brellmoor	The bridge is 48 metres long	0	4	11
7.3-4.0	D9901	Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022	Ida Fenwick is the mayor of Brellmoor	0	7	4
